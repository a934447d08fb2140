import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import Docker from 'dockerode';
import type { Logger } from '../log';
import { withTimeout } from '../util/with-timeout';
import { mapDockerError } from './docker-errors';
import type {
  AttachedStreams,
  BuildOptions,
  ContainerSpec,
  ContainerState,
  ContainerSummary,
  DockerClient,
  EngineEndpoint,
  EngineEvent,
  EngineVersion,
  ExecOptions,
  ExecResult,
  ImageInfo,
  NetworkInfo,
  NetworkSpec,
  NetworkSummary,
  VolumeSpec,
  VolumeSummary,
} from './docker-client';

const CALL_TIMEOUT_MS = 30_000;
const BUILD_TIMEOUT_MS = 30 * 60_000;

export interface DockerodeClientOptions {
  /** `unix:///path`, `tcp://host:port`, or a socket path. Default: DOCKER_HOST, else /var/run/docker.sock. */
  host?: string;
  logger: Logger;
}

function labelFilters(labels: Record<string, string | true>): string[] {
  return Object.entries(labels).map(([k, v]) => (v === true ? k : `${k}=${v}`));
}

export function resolveEndpoint(host: string | undefined): { options: Docker.DockerOptions; endpoint: EngineEndpoint } {
  const raw = host ?? process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
  if (raw.startsWith('unix://') || raw.startsWith('/')) {
    const socketPath = raw.replace(/^unix:\/\//, '');
    return { options: { socketPath }, endpoint: { kind: 'local', address: socketPath } };
  }
  const url = new URL(raw.replace(/^tcp:\/\//, 'http://'));
  return {
    options: { host: url.hostname, port: Number(url.port || 2375), protocol: 'http' },
    endpoint: { kind: 'remote', address: `${url.hostname}:${url.port || 2375}` },
  };
}

/** The dockerode implementation of DockerClient: every call logged, timed out and mapped to SandpitError. */
export class DockerodeClient implements DockerClient {
  readonly endpoint: EngineEndpoint;
  private readonly docker: Docker;
  private readonly log: Logger;

  constructor(options: DockerodeClientOptions) {
    const resolved = resolveEndpoint(options.host);
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
      const v = await this.docker.version();
      const info = (await this.docker.info()) as { Runtimes?: Record<string, unknown> };
      return { version: v.Version, apiVersion: v.ApiVersion, os: v.Os, runtimes: Object.keys(info.Runtimes ?? {}) };
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
    await this.call('kill container', { containerId: id, signal }, async () => {
      try {
        await this.docker.getContainer(id).kill({ signal });
      } catch (error) {
        // Already stopped is fine: the goal is a container that does not run.
        if ((error as { statusCode?: number }).statusCode === 409) return;
        throw error;
      }
    });
  }

  async removeContainer(id: string): Promise<void> {
    await this.call('remove container', { containerId: id }, async () => {
      try {
        await this.docker.getContainer(id).remove({ force: true, v: true });
      } catch (error) {
        const code = (error as { statusCode?: number }).statusCode;
        if (code === 404 || code === 409) return; // gone, or removal already in progress
        throw error;
      }
    });
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
      };
    });
  }

  async waitContainer(id: string): Promise<number> {
    return this.call('wait for container', { containerId: id }, async () => {
      const r = (await this.docker.getContainer(id).wait()) as { StatusCode: number };
      return r.StatusCode;
    }, 24 * 3_600_000);
  }

  async runToCompletion(spec: ContainerSpec, options: { timeoutMs: number; maxOutputBytes: number }): Promise<ExecResult> {
    const id = await this.createContainer(spec);
    try {
      await this.startContainer(id);
      let timedOut = false;
      const exitCode = await withTimeout(this.waitContainer(id), options.timeoutMs, 'helper container').catch(async () => {
        timedOut = true;
        await this.killContainer(id);
        return -1;
      });
      const logs = await this.call('read container logs', { containerId: id }, async () => {
        const raw = await this.docker.getContainer(id).logs({ stdout: true, stderr: true, follow: false });
        return demuxBuffer(raw, options.maxOutputBytes);
      });
      return { exitCode, stdout: logs.stdout, stderr: logs.stderr, timedOut };
    } finally {
      await this.removeContainer(id).catch(() => undefined);
    }
  }

  async attachContainer(id: string): Promise<AttachedStreams> {
    return this.call('attach to container', { containerId: id }, async () => {
      const container = this.docker.getContainer(id);
      const stream = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as NodeJS.ReadWriteStream & { destroy(): void };
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      this.docker.modem.demuxStream(stream, stdout, stderr);
      stream.on('end', () => {
        stdout.end();
        stderr.end();
      });
      stream.on('error', (error: Error) => stdout.destroy(error));
      return {
        stdin: stream as unknown as AttachedStreams['stdin'],
        stdout,
        stderr,
        close: () => stream.destroy(),
      };
    });
  }

  async exec(id: string, argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const timeoutMs = options.timeoutMs ?? CALL_TIMEOUT_MS;
    const maxBytes = options.maxOutputBytes ?? 1024 * 1024;
    return this.call('exec in container', { containerId: id, argv0: argv[0] }, async () => {
      const container = this.docker.getContainer(id);
      const exec = await container.exec({
        Cmd: argv,
        User: options.user,
        Env: options.env ? Object.entries(options.env).map(([k, v]) => `${k}=${v}`) : undefined,
        WorkingDir: options.workingDir,
        AttachStdin: options.stdin !== undefined,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
      });
      const stream = await exec.start({ hijack: true, stdin: options.stdin !== undefined });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let outBytes = 0;
      let errBytes = 0;
      const collect = (into: Buffer[], which: 'out' | 'err'): PassThrough => {
        const sink = new PassThrough();
        sink.on('data', (chunk: Buffer) => {
          const used = which === 'out' ? outBytes : errBytes;
          if (used >= maxBytes) return;
          const part = chunk.subarray(0, maxBytes - used);
          into.push(part);
          if (which === 'out') outBytes += part.length;
          else errBytes += part.length;
        });
        return sink;
      };
      this.docker.modem.demuxStream(stream, collect(out, 'out'), collect(err, 'err'));
      if (options.stdin !== undefined) stream.end(options.stdin);
      let timedOut = false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timedOut = true;
          stream.destroy();
          resolve();
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          resolve();
        };
        stream.on('end', finish);
        stream.on('close', finish);
        stream.on('error', finish);
      });
      const info = await exec.inspect();
      return {
        exitCode: timedOut ? -1 : (info.ExitCode ?? -1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        timedOut,
      };
    }, timeoutMs + CALL_TIMEOUT_MS);
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
    await this.call('remove volume', { volume: name }, async () => {
      try {
        await this.docker.getVolume(name).remove({ force: true });
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode === 404) return;
        throw error;
      }
    });
  }

  async listVolumes(labels: Record<string, string | true>): Promise<VolumeSummary[]> {
    return this.call('list volumes', { labels }, async () => {
      const r = await this.docker.listVolumes({ filters: JSON.stringify({ label: labelFilters(labels) }) });
      return (r.Volumes ?? []).map((v) => ({ name: v.Name, labels: v.Labels ?? {} }));
    });
  }

  async imageExists(tag: string): Promise<boolean> {
    return this.call('inspect image', { image: tag }, async () => {
      try {
        await this.docker.getImage(tag).inspect();
        return true;
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode === 404) return false;
        throw error;
      }
    });
  }

  async inspectImage(tag: string): Promise<ImageInfo | undefined> {
    return this.call('inspect image', { image: tag }, async () => {
      try {
        const i = await this.docker.getImage(tag).inspect();
        return { id: i.Id, labels: i.Config?.Labels ?? {}, sizeBytes: i.Size };
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode === 404) return undefined;
        throw error;
      }
    });
  }

  async buildImage(context: Buffer, options: BuildOptions, onLog?: (line: string) => void): Promise<void> {
    await this.call('build image', { image: options.tag }, async () => {
      const stream = await this.docker.buildImage(bufferStream(context), {
        t: options.tag,
        dockerfile: options.dockerfile,
        buildargs: options.buildArgs,
        labels: options.labels,
        networkmode: options.networkMode,
        rm: true,
        forcerm: true,
      });
      await new Promise<void>((resolve, reject) => {
        this.docker.modem.followProgress(
          stream,
          (error: Error | null, output: Array<{ error?: string; errorDetail?: { message?: string } }>) => {
            const failed = error ?? output.find((o) => o.error);
            if (failed) reject(failed instanceof Error ? failed : new Error(failed.errorDetail?.message ?? failed.error));
            else resolve();
          },
          (event: { stream?: string; status?: string; error?: string }) => {
            const text = event.stream ?? event.status ?? event.error;
            if (text && onLog) for (const line of text.split('\n')) if (line.trim()) onLog(line);
          },
        );
      });
    }, BUILD_TIMEOUT_MS);
  }

  async importImage(rootfsTar: Readable, tag: string): Promise<void> {
    const [repo, version] = splitTag(tag);
    await this.call('import image', { image: tag }, async () => {
      const stream = await this.docker.importImage(rootfsTar, { repo, tag: version });
      await new Promise<void>((resolve, reject) => {
        this.docker.modem.followProgress(stream, (error: Error | null) => (error ? reject(error) : resolve()));
      });
    }, BUILD_TIMEOUT_MS);
  }

  async removeImage(tag: string): Promise<void> {
    await this.call('remove image', { image: tag }, async () => {
      try {
        await this.docker.getImage(tag).remove({ force: true });
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode === 404) return;
        throw error;
      }
    });
  }

  async createNetwork(spec: NetworkSpec): Promise<string> {
    return this.call('create network', { network: spec.name }, async () => {
      const n = await this.docker.createNetwork({ Name: spec.name, Labels: spec.labels, Internal: spec.internal, CheckDuplicate: true });
      return n.id;
    });
  }

  async removeNetwork(id: string): Promise<void> {
    await this.call('remove network', { network: id }, async () => {
      try {
        await this.docker.getNetwork(id).remove();
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode === 404) return;
        throw error;
      }
    });
  }

  async connectNetwork(networkId: string, containerId: string, aliases?: string[]): Promise<void> {
    await this.call('connect network', { network: networkId, containerId }, async () => {
      await this.docker.getNetwork(networkId).connect({ Container: containerId, EndpointConfig: { Aliases: aliases } });
    });
  }

  async inspectNetwork(idOrName: string): Promise<NetworkInfo | undefined> {
    return this.call('inspect network', { network: idOrName }, async () => {
      try {
        const n = (await this.docker.getNetwork(idOrName).inspect()) as RawNetwork;
        return {
          ...networkSummary(n),
          internal: n.Internal === true,
          subnets: (n.IPAM?.Config ?? []).flatMap((c) => (c.Subnet ? [{ subnet: c.Subnet, ...(c.Gateway ? { gateway: c.Gateway } : {}) }] : [])),
        };
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode === 404) return undefined;
        throw error;
      }
    });
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
    let buffer = '';
    let ended = false;
    const end = (error?: Error): void => {
      if (ended) return;
      ended = true;
      onEnd(error);
    };
    stream.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
        if (!line) continue;
        try {
          const e = JSON.parse(line) as { Type?: string; Action?: string; id?: string; Actor?: { ID?: string; Attributes?: Record<string, string> }; time?: number };
          const attributes = e.Actor?.Attributes ?? {};
          const exit = attributes.exitCode;
          onEvent({
            type: e.Type ?? '',
            action: e.Action ?? '',
            id: e.Actor?.ID ?? e.id ?? '',
            labels: attributes,
            exitCode: exit === undefined ? undefined : Number(exit),
            time: e.time ?? Date.now() / 1000,
          });
        } catch {
          // A malformed event line is skipped; the stream goes on.
        }
      }
    });
    stream.on('end', () => end());
    stream.on('close', () => end());
    stream.on('error', (error: Error) => end(error));
    return () => {
      ended = true;
      (stream as unknown as { destroy(): void }).destroy();
    };
  }
}

/** Splits Docker's multiplexed log format (8-byte frame headers) into stdout and stderr, each capped. */
export function demuxBuffer(raw: Buffer, maxBytes: number): { stdout: string; stderr: string } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let outBytes = 0;
  let errBytes = 0;
  let at = 0;
  while (at + 8 <= raw.length) {
    const stream = raw[at];
    const size = raw.readUInt32BE(at + 4);
    const frame = raw.subarray(at + 8, at + 8 + size);
    at += 8 + size;
    if (stream === 2) {
      if (errBytes < maxBytes) err.push(frame.subarray(0, maxBytes - errBytes));
      errBytes += frame.length;
    } else {
      if (outBytes < maxBytes) out.push(frame.subarray(0, maxBytes - outBytes));
      outBytes += frame.length;
    }
  }
  return { stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
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

function splitTag(tag: string): [string, string] {
  const at = tag.lastIndexOf(':');
  return at > tag.lastIndexOf('/') ? [tag.slice(0, at), tag.slice(at + 1)] : [tag, 'latest'];
}

function bufferStream(buffer: Buffer): NodeJS.ReadableStream {
  const s = new PassThrough();
  s.end(buffer);
  return s;
}
