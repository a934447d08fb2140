import type { Readable } from 'node:stream';
import { readFileSync } from 'node:fs';
import Docker from 'dockerode';
import { SandpitError } from '../../shared/api/errors';
import type { EngineCandidate } from './engine-discovery';
import type { Logger } from '../log';
import { withTimeout } from '../util/with-timeout';
import { mapDockerError } from './docker-errors';
import type {
  AttachedStreams,
  BuildOptions,
  ContainerSpec,
  ContainerState,
  ContainerStats,
  ContainerSummary,
  DockerClient,
  EngineEndpoint,
  EngineEvent,
  EngineProduct,
  EngineVersion,
  ExecOptions,
  ExecResult,
  NetworkSpec,
  VolumeInfo,
  VolumeSpec,
  VolumeSummary,
} from './docker-client';
import type { ImageInfo } from '../sandbox/sandbox-images';
import type { NetworkInfo, NetworkSummary } from '../sandbox/sandbox-networks';
import { followEventStream } from './dockerode-events';
import { attachStreams, execInContainer, readContainerLogs, runHelperContainer } from './dockerode-exec';
import { buildFromContext, importRootfs } from './dockerode-images';
import { podmanKill } from './podman-kill';
import type { ContainerProfile } from './profile-check';

const CALL_TIMEOUT_MS = 30_000;
const BUILD_TIMEOUT_MS = 30 * 60_000;

export interface DockerodeClientOptions {
  /** The engine (see engine-discovery.ts); a bare `host` string is taken as given, without TLS. Default: DOCKER_HOST, else /var/run/docker.sock. */
  engine?: EngineCandidate;
  /** `unix:///path`, `tcp://host:port`, `ssh://user@host`, or a socket path (when no `engine` is given). */
  host?: string;
  logger: Logger;
}

function labelFilters(labels: Record<string, string | true>): string[] {
  return Object.entries(labels).map(([k, v]) => (v === true ? k : `${k}=${v}`));
}

/** Runs `run`; when the engine answers with one of `codes` (e.g. 404: already gone), `fallback` instead of the error. */
async function unlessStatus<T>(codes: readonly number[], fallback: T, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const code = (error as { statusCode?: number }).statusCode;
    if (code !== undefined && codes.includes(code)) return fallback;
    throw error;
  }
}

/** Podman's Docker-compatible service names itself among the components of /version ("Podman Engine"). */
export function engineProduct(version: { Components?: Array<{ Name?: string }> }): EngineProduct {
  return (version.Components ?? []).some((c) => /podman/i.test(c.Name ?? '')) ? 'podman' : 'docker';
}

/** Reads a certificate file, saying which one could not be read. */
function pem(path: string | undefined, what: string): Buffer | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path);
  } catch (error) {
    throw new SandpitError('DOCKER_UNAVAILABLE', `Cannot read the Docker TLS ${what} at ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** dockerode's options for an engine: a unix socket or pipe, HTTP or HTTPS (with client certificates), or SSH. */
export function resolveEndpoint(engine: EngineCandidate | string | undefined): { options: Docker.DockerOptions; endpoint: EngineEndpoint } {
  const candidate: EngineCandidate =
    typeof engine === 'string' ? { host: engine, source: 'the address given' } : (engine ?? { host: process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock', source: process.env.DOCKER_HOST ? 'DOCKER_HOST' : 'the default socket' });
  const raw = candidate.host;
  const source = candidate.source;
  if (raw.startsWith('unix://') || raw.startsWith('/')) {
    const socketPath = raw.replace(/^unix:\/\//, '');
    return { options: { socketPath }, endpoint: { kind: 'local', address: socketPath, source } };
  }
  if (raw.startsWith('npipe://')) {
    const socketPath = raw.replace(/^npipe:\/\//, '').replace(/\//g, '\\');
    return { options: { socketPath }, endpoint: { kind: 'local', address: raw, source } };
  }
  if (raw.startsWith('ssh://')) {
    const url = new URL(raw);
    const port = Number(url.port || 22);
    return {
      options: {
        protocol: 'ssh',
        host: url.hostname,
        port,
        ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
        sshOptions: { ...(process.env.SSH_AUTH_SOCK ? { agent: process.env.SSH_AUTH_SOCK } : {}) },
      },
      endpoint: { kind: 'remote', address: `${url.username ? `${url.username}@` : ''}${url.hostname}:${port} (ssh)`, source },
    };
  }
  const url = new URL(raw.replace(/^tcp:\/\//, candidate.tls ? 'https://' : 'http://'));
  const tls = candidate.tls;
  const port = Number(url.port || (tls ? 2376 : 2375));
  const loopback = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(url.hostname);
  return {
    options: tls
      ? { host: url.hostname, port, protocol: 'https', ca: pem(tls.verify ? tls.ca : undefined, 'CA certificate'), cert: pem(tls.cert, 'client certificate'), key: pem(tls.key, 'client key') }
      : { host: url.hostname, port, protocol: 'http' },
    endpoint: { kind: loopback ? 'local' : 'remote', address: `${url.hostname}:${port}${tls ? ' (TLS)' : ''}`, source, ...(loopback ? { tcp: true } : {}), ...(tls ? { tls: true } : {}) },
  };
}

/** How long what an engine's `info` said (its runtimes, whether it is rootless; the slowest call a ping makes) is taken as still true. */
const INFO_FRESH_MS = 10_000;
/**
 * How long its version is taken as still true: a ping within it asks only whether the engine answers (`/_ping`,
 * ≈ 1 ms, where `version` took ≈ 20 ms here and the first sandbox of a start waited for it).
 */
const VERSION_FRESH_MS = 2_000;
/**
 * What each engine (by address) said in its `info` — its runtimes and whether it runs rootless — with its version and when: a start pings the engine three
 * times within a second or two (the boot, the engine monitor, the isolation check), and `info` was most of each.
 * The version is asked again once it is VERSION_FRESH_MS old (a new engine, or one restarted as another version, is asked again).
 */
const knownInfo = new Map<string, { version: string; runtimes: string[]; rootless: boolean; at: number; answer?: { at: number; product: EngineProduct; apiVersion: string; os: string } }>();

/**
 * The dockerode implementation of DockerClient: every call logged, timed out and mapped to SandpitError.
 * The longer bodies live in dockerode-exec.ts, dockerode-images.ts and dockerode-events.ts; they run inside `call`.
 */
export class DockerodeClient implements DockerClient {
  readonly endpoint: EngineEndpoint;
  private readonly docker: Docker;
  private readonly log: Logger;
  /** Which engine answered the last ping (Podman needs its own kill call). */
  private product: EngineProduct | undefined;

  constructor(options: DockerodeClientOptions) {
    const resolved = resolveEndpoint(options.engine ?? options.host);
    this.docker = new Docker(resolved.options);
    this.endpoint = resolved.endpoint;
    this.log = options.logger.child({ component: 'docker' });
  }

  private async call<T>(what: string, fields: Record<string, unknown>, run: () => Promise<T>, timeoutMs = CALL_TIMEOUT_MS): Promise<T> {
    this.log.debug(`doing ${what}`, fields);
    try {
      const value = await withTimeout(run(), timeoutMs, `Docker call "${what}"`);
      this.log.debug(`did ${what}`, fields);
      return value;
    } catch (error) {
      this.log.warn(`failed to ${what}`, { ...fields, error: error instanceof Error ? error.message : String(error) });
      throw mapDockerError(error, what, this.endpoint);
    }
  }

  async ping(timeoutMs = 5_000): Promise<EngineVersion> {
    return this.call('ping the engine', {}, async () => {
      const key = this.endpoint.address;
      const known = knownInfo.get(key);
      const answer = known?.answer;
      if (known && answer && Date.now() - answer.at < VERSION_FRESH_MS) {
        await this.docker.ping();
        this.product = answer.product;
        return { product: answer.product, version: known.version, apiVersion: answer.apiVersion, os: answer.os, runtimes: [...known.runtimes], rootless: known.rootless };
      }
      const fresh = known !== undefined && Date.now() - known.at < INFO_FRESH_MS;
      // asked together when both are needed: Podman's service takes seconds for each under load, and the ping has one deadline
      type Info = { Runtimes?: Record<string, unknown>; SecurityOptions?: unknown };
      const askInfo = (): Promise<Info> => this.docker.info() as Promise<Info>;
      const [v, asked] = await Promise.all([this.docker.version(), fresh ? undefined : askInfo()]);
      let facts = fresh && known.version === v.Version ? known : undefined;
      if (!facts) {
        const info = asked ?? (await askInfo());
        const security = Array.isArray(info.SecurityOptions) ? info.SecurityOptions.map(String) : [];
        facts = { version: v.Version, runtimes: Object.keys(info.Runtimes ?? {}), rootless: security.some((o) => o.split(',').includes('name=rootless')), at: Date.now() };
        knownInfo.set(key, facts);
      }
      this.product = engineProduct(v);
      facts.answer = { at: Date.now(), product: this.product, apiVersion: v.ApiVersion, os: v.Os };
      return { product: this.product, version: v.Version, apiVersion: v.ApiVersion, os: v.Os, runtimes: [...facts.runtimes], rootless: facts.rootless };
    }, timeoutMs);
  }

  async createContainer(spec: ContainerSpec): Promise<string> {
    return this.call('create container', { name: spec.name, image: spec.image }, async () => {
      const c = await this.docker.createContainer({
        name: spec.name,
        Image: spec.image,
        Cmd: spec.cmd,
        Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
        Labels: spec.labels,
        User: spec.user,
        WorkingDir: spec.workingDir,
        OpenStdin: spec.openStdin,
        StdinOnce: false,
        AttachStdin: spec.openStdin,
        AttachStdout: spec.openStdin,
        AttachStderr: spec.openStdin,
        Tty: false,
        HostConfig: spec.hostConfig,
        NetworkingConfig: spec.networkingConfig,
      });
      return c.id;
    });
  }

  async startContainer(id: string): Promise<void> {
    await this.call('start container', { containerId: id }, () => this.docker.getContainer(id).start());
  }

  async killContainer(id: string, signal = 'SIGKILL'): Promise<void> {
    // Already stopped (409) is fine: the goal is a container that does not run.
    await this.call('kill container', { containerId: id, signal }, () =>
      unlessStatus<void>([409], undefined, () => (this.product === 'podman' ? podmanKill(this.docker, id, signal) : this.docker.getContainer(id).kill({ signal }))),
    );
  }

  async removeContainer(id: string): Promise<void> {
    // 404: gone, 409: removal already in progress.
    await this.call('remove container', { containerId: id }, () =>
      unlessStatus<void>([404, 409], undefined, () => this.docker.getContainer(id).remove({ force: true, v: true })),
    );
  }

  async inspectContainer(id: string): Promise<ContainerState> {
    return this.call('inspect container', { containerId: id }, async () => {
      const i = await this.docker.getContainer(id).inspect();
      const networks = Object.values(i.NetworkSettings.Networks ?? {});
      return {
        id: i.Id,
        running: i.State.Running,
        status: i.State.Status,
        exitCode: i.State.ExitCode,
        oomKilled: i.State.OOMKilled,
        pid: i.State.Pid,
        labels: i.Config.Labels ?? {},
        ipAddress: networks.find((n) => n.IPAddress)?.IPAddress,
        runtime: (i.HostConfig as { Runtime?: string } | undefined)?.Runtime || 'runc',
        image: i.Config.Image,
        networkMode: i.HostConfig.NetworkMode,
        binds: (i.Mounts ?? []).filter((m) => m.Type === 'bind').map((m) => ({ source: m.Source, target: m.Destination, readOnly: !m.RW })),
        profile: profileOf(i),
      };
    });
  }

  async waitContainer(id: string): Promise<number> {
    return this.call('wait for container', { containerId: id }, async () => {
      const r = (await this.docker.getContainer(id).wait()) as { StatusCode: number };
      return r.StatusCode;
    }, 24 * 3_600_000);
  }

  async containerStats(id: string): Promise<ContainerStats> {
    return this.call('read container stats', { containerId: id }, async () => {
      const raw = (await this.docker.getContainer(id).stats({ stream: false })) as unknown as RawStats;
      return statsFrom(raw);
    });
  }

  async runToCompletion(spec: ContainerSpec, options: { timeoutMs: number; maxOutputBytes: number }): Promise<ExecResult> {
    const readLogs = (id: string): Promise<{ stdout: string; stderr: string }> =>
      this.call('read container logs', { containerId: id }, () => readContainerLogs(this.docker, id, options.maxOutputBytes));
    return runHelperContainer(this, readLogs, spec, options.timeoutMs);
  }

  async attachContainer(id: string): Promise<AttachedStreams> {
    return this.call('attach to container', { containerId: id }, () => attachStreams(this.docker, id));
  }

  async exec(id: string, argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const timeoutMs = options.timeoutMs ?? CALL_TIMEOUT_MS;
    return this.call(
      'exec in container',
      { containerId: id, argv0: argv[0] },
      () => execInContainer(this.docker, id, argv, options, timeoutMs),
      timeoutMs + CALL_TIMEOUT_MS,
    );
  }

  async listContainers(labels: Record<string, string | true>): Promise<ContainerSummary[]> {
    return this.call('list containers', { labels }, async () => {
      const list = await this.docker.listContainers({ all: true, filters: JSON.stringify({ label: labelFilters(labels) }) });
      return list.map((c) => ({ id: c.Id, names: c.Names, state: c.State, labels: c.Labels ?? {} }));
    });
  }

  async putArchive(id: string, dir: string, tar: Buffer): Promise<void> {
    await this.call('put archive', { containerId: id, dir }, async () => {
      await this.docker.getContainer(id).putArchive(tar, { path: dir });
    });
  }

  async getArchive(id: string, path: string): Promise<Readable> {
    return this.call('get archive', { containerId: id, path }, async () => {
      const stream = await this.docker.getContainer(id).getArchive({ path });
      return stream as unknown as Readable;
    });
  }

  async createVolume(spec: VolumeSpec): Promise<string> {
    return this.call('create volume', { volume: spec.name }, async () => {
      const v = (await this.docker.createVolume({ Name: spec.name, Labels: spec.labels, DriverOpts: spec.driverOpts })) as unknown as { name?: string; Name?: string };
      return v.Name ?? v.name ?? spec.name;
    });
  }

  async removeVolume(name: string): Promise<void> {
    await this.call('remove volume', { volume: name }, () =>
      unlessStatus<void>([404], undefined, () => this.docker.getVolume(name).remove({ force: true })),
    );
  }

  async inspectVolume(name: string): Promise<VolumeInfo | undefined> {
    return this.call('inspect volume', { volume: name }, () =>
      unlessStatus<VolumeInfo | undefined>([404], undefined, async () => {
        const v = (await this.docker.getVolume(name).inspect()) as { Name: string; Driver?: string; Labels?: Record<string, string> | null; Options?: Record<string, string> | null; Mountpoint?: string };
        return { name: v.Name, driver: v.Driver ?? '', labels: v.Labels ?? {}, options: v.Options ?? {}, mountpoint: v.Mountpoint ?? '' };
      }),
    );
  }

  async listVolumes(labels: Record<string, string | true>): Promise<VolumeSummary[]> {
    return this.call('list volumes', { labels }, async () => {
      const r = await this.docker.listVolumes({ filters: JSON.stringify({ label: labelFilters(labels) }) });
      return (r.Volumes ?? []).map((v) => ({ name: v.Name, labels: v.Labels ?? {} }));
    });
  }

  async imageExists(tag: string): Promise<boolean> {
    return this.call('inspect image', { image: tag }, () =>
      unlessStatus([404], false, async () => {
        await this.docker.getImage(tag).inspect();
        return true;
      }),
    );
  }

  async inspectImage(tag: string): Promise<ImageInfo | undefined> {
    return this.call('inspect image', { image: tag }, () =>
      unlessStatus<ImageInfo | undefined>([404], undefined, async () => {
        const i = await this.docker.getImage(tag).inspect();
        return { id: i.Id, labels: i.Config?.Labels ?? {}, sizeBytes: i.Size };
      }),
    );
  }

  async buildImage(context: Buffer, options: BuildOptions, onLog?: (line: string) => void): Promise<void> {
    await this.call('build image', { image: options.tag }, () => buildFromContext(this.docker, context, options, onLog), BUILD_TIMEOUT_MS);
  }

  async importImage(rootfsTar: Readable, tag: string): Promise<void> {
    await this.call('import image', { image: tag }, () => importRootfs(this.docker, rootfsTar, tag), BUILD_TIMEOUT_MS);
  }

  async removeImage(tag: string): Promise<void> {
    await this.call('remove image', { image: tag }, () =>
      unlessStatus<void>([404], undefined, () => this.docker.getImage(tag).remove({ force: true })),
    );
  }

  async createNetwork(spec: NetworkSpec): Promise<string> {
    return this.call('create network', { network: spec.name }, async () => {
      const n = await this.docker.createNetwork({ Name: spec.name, Labels: spec.labels, Internal: spec.internal, CheckDuplicate: true });
      return n.id;
    });
  }

  async removeNetwork(id: string): Promise<void> {
    await this.call('remove network', { network: id }, () =>
      unlessStatus<void>([404], undefined, () => this.docker.getNetwork(id).remove()),
    );
  }

  async connectNetwork(networkId: string, containerId: string, aliases?: string[]): Promise<void> {
    await this.call('connect network', { network: networkId, containerId }, async () => {
      await this.docker.getNetwork(networkId).connect({ Container: containerId, EndpointConfig: { Aliases: aliases } });
    });
  }

  async inspectNetwork(idOrName: string): Promise<NetworkInfo | undefined> {
    return this.call('inspect network', { network: idOrName }, () =>
      unlessStatus<NetworkInfo | undefined>([404], undefined, async () => {
        const n = (await this.docker.getNetwork(idOrName).inspect()) as RawNetwork;
        return {
          ...networkSummary(n),
          internal: n.Internal === true,
          subnets: (n.IPAM?.Config ?? []).flatMap((c) => (c.Subnet ? [{ subnet: c.Subnet, ...(c.Gateway ? { gateway: c.Gateway } : {}) }] : [])),
        };
      }),
    );
  }

  async listNetworks(labels: Record<string, string | true>): Promise<NetworkSummary[]> {
    return this.call('list networks', { labels }, async () => {
      const list = (await this.docker.listNetworks({ filters: JSON.stringify({ label: labelFilters(labels) }) })) as RawNetwork[];
      return list.map(networkSummary);
    });
  }

  async watchEvents(
    labels: Record<string, string | true>,
    onEvent: (event: EngineEvent) => void,
    onEnd: (error?: Error) => void,
  ): Promise<() => void> {
    const stream = await this.call('follow engine events', { labels }, () =>
      this.docker.getEvents({ filters: JSON.stringify({ type: ['container'], label: labelFilters(labels) }) }),
    );
    return followEventStream(stream, onEvent, onEnd);
  }
}

interface RawNetwork {
  Id: string;
  Name: string;
  Internal?: boolean;
  Labels?: Record<string, string> | null;
  IPAM?: { Config?: Array<{ Subnet?: string; Gateway?: string }> | null };
}

function networkSummary(n: RawNetwork): NetworkSummary {
  return { id: n.Id, name: n.Name, labels: n.Labels ?? {} };
}

interface RawStats {
  cpu_stats?: { cpu_usage?: { total_usage?: number; percpu_usage?: number[] }; system_cpu_usage?: number; online_cpus?: number };
  precpu_stats?: { cpu_usage?: { total_usage?: number }; system_cpu_usage?: number };
  memory_stats?: { usage?: number; limit?: number; stats?: { cache?: number; inactive_file?: number; total_inactive_file?: number } };
  pids_stats?: { current?: number };
}

/** Docker's stats document → cores in use, working-set memory (without the page cache), pids. */
export function statsFrom(raw: RawStats): ContainerStats {
  const cpuDelta = (raw.cpu_stats?.cpu_usage?.total_usage ?? 0) - (raw.precpu_stats?.cpu_usage?.total_usage ?? 0);
  const systemDelta = (raw.cpu_stats?.system_cpu_usage ?? 0) - (raw.precpu_stats?.system_cpu_usage ?? 0);
  const cpus = raw.cpu_stats?.online_cpus ?? raw.cpu_stats?.cpu_usage?.percpu_usage?.length ?? 1;
  const cpu = cpuDelta > 0 && systemDelta > 0 ? (cpuDelta / systemDelta) * cpus : 0;
  const memory = raw.memory_stats ?? {};
  const cache = memory.stats?.total_inactive_file ?? memory.stats?.inactive_file ?? memory.stats?.cache ?? 0;
  return {
    cpu,
    memoryBytes: Math.max(0, (memory.usage ?? 0) - cache),
    memoryLimitBytes: memory.limit ?? 0,
    pids: raw.pids_stats?.current ?? 0,
  };
}

/** A container's protections and limits from its inspect answer (fields an engine leaves out count as not set). */
function profileOf(i: Docker.ContainerInspectInfo): ContainerProfile {
  const h = i.HostConfig as unknown as {
    Privileged?: boolean;
    CapAdd?: string[] | null;
    CapDrop?: string[] | null;
    SecurityOpt?: string[] | null;
    ReadonlyRootfs?: boolean;
    Memory?: number;
    NanoCpus?: number;
    CpuQuota?: number;
    CpuPeriod?: number;
    PidsLimit?: number | null;
  };
  return {
    privileged: h.Privileged === true,
    capAdd: h.CapAdd ?? [],
    capDrop: h.CapDrop ?? [],
    securityOpt: h.SecurityOpt ?? [],
    readonlyRootfs: h.ReadonlyRootfs === true,
    user: i.Config.User ?? '',
    memory: h.Memory ?? 0,
    nanoCpus: h.NanoCpus ?? 0,
    cpuQuota: h.CpuQuota ?? 0,
    cpuPeriod: h.CpuPeriod ?? 0,
    pidsLimit: h.PidsLimit ?? 0,
  };
}
