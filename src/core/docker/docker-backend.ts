import type { ChannelKind } from '../../shared/domain/session';
import type { ChannelSetting } from '../config';
import type { Logger } from '../log';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { SandpitError } from '../../shared/api/errors';
import type { BackendEndpoint, EngineInfo, ReopenOptions, SandboxBackend, SandboxRecord, SandboxSpec } from '../sandbox/sandbox-backend';
import type { DaemonEvents } from './daemon-events';
import type { DockerClient, EngineEndpoint, EngineProduct } from './docker-client';
import { dockerFixHint } from './docker-errors';
import { DockerSandbox } from './docker-sandbox';
import { gvisorNetworkRefusal, gvisorRuntimeFor } from './gvisor';
import { probeGvisorNetwork } from './gvisor-probe';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import { podmanGvisorRefusal } from './podman';
import type { WorkspaceKind, WorkspaceStorage } from './workspace-storage';

export interface DockerBackendDeps {
  docker: DockerClient;
  events: DaemonEvents;
  identity: InstanceIdentity;
  /** This instance's folder for agent sockets (`<runRoot>/<instanceId>`). */
  instanceDir: string;
  channel: ChannelSetting;
  /** What /workspace is on. */
  workspaces: WorkspaceStorage;
  log: Logger;
}

/** Chooses the agent channel: the unix socket when the engine is local to us and can share a host dir. */
export function resolveChannel(setting: ChannelSetting, endpoint: EngineEndpoint): ChannelKind {
  if (setting !== 'auto') return setting;
  const canChown = typeof process.getuid === 'function' && process.getuid() === 0;
  // A socket in a host folder needs the engine on this machine, reached through its own socket (not TCP).
  return endpoint.kind === 'local' && endpoint.tcp !== true && process.platform === 'linux' && canChown ? 'socket' : 'attach';
}

/** An instance's folder in the run folder: its instance id. */
const INSTANCE_DIR = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A kept session's record is input from a file: its agent folder must be where Sandpit makes them
 * (`<runRoot>/<instance>/<session>`: it is chowned to the sandbox user and removed with the session) and its
 * runtime one Sandpit uses for its isolation. Else DENIED, and nothing it names is touched.
 */
function assertKeptRecord(spec: SandboxSpec, record: SandboxRecord, runRoot: string): void {
  if (record.agentDir !== undefined) {
    const where = relative(resolve(runRoot), resolve(record.agentDir)).split(sep);
    if (record.channel !== 'socket' || where.length !== 2 || !INSTANCE_DIR.test(where[0] ?? '') || where[1] !== spec.sessionId) {
      throw new SandpitError('DENIED', `The record of kept session ${spec.sessionId} names ${record.agentDir} as its agent folder, which is not where Sandpit makes them (${join(runRoot, '<instance>', spec.sessionId)}): it is not taken over, and that folder is left alone.`, { reason: 'foreign-folder' });
    }
  } else if (record.channel === 'socket') {
    throw new SandpitError('DENIED', `The record of kept session ${spec.sessionId} says it talks over a socket but names no agent folder: it is not taken over.`, { reason: 'record-mismatch' });
  }
  const gvisor = /^runsc(-[a-z0-9]+)*$/.test(record.runtime);
  if (!(record.runtime === 'runc' || gvisor) || gvisor !== (spec.isolation === 'strong')) {
    throw new SandpitError('DENIED', `The record of kept session ${spec.sessionId} says it runs under "${record.runtime}", which is not the runtime of its isolation (${spec.isolation}): it is not taken over.`, { reason: 'record-mismatch' });
  }
}

/** Sessions on a Docker engine (or anything speaking its API): the first SandboxBackend. */
export class DockerBackend implements SandboxBackend {
  private workspaces: WorkspaceStorage;

  constructor(private readonly deps: DockerBackendDeps) {
    this.workspaces = deps.workspaces;
  }

  /** The channel of this engine's sandboxes (the engine can change: it is worked out each time). */
  get channel(): ChannelKind {
    return resolveChannel(this.deps.channel, this.deps.docker.endpoint);
  }

  /** What new sandboxes' /workspace is on (after a change of engine). */
  useWorkspaces(workspaces: WorkspaceStorage): void {
    const previous = this.workspaces;
    this.workspaces = workspaces;
    void previous.close?.().catch(() => undefined);
  }

  /** Removes what the workspace storage made for itself (its sandboxes are gone: Sandpit is quitting). */
  async closeWorkspaces(): Promise<void> {
    await this.workspaces.close?.();
  }

  /** What sessions' /workspace is on (the README says what each engine gets). */
  get workspaceKind(): WorkspaceKind {
    return this.workspaces.kind;
  }

  get endpoint(): BackendEndpoint {
    return this.deps.docker.endpoint;
  }

  async ping(timeoutMs?: number): Promise<EngineInfo> {
    const info = await this.deps.docker.ping(timeoutMs);
    this.product = { address: this.deps.docker.endpoint.address, product: info.product };
    return info;
  }

  /** Which engine answered the last ping, for the engine at that address (the engine can change). */
  private product: { address: string; product: EngineProduct } | undefined;

  private async engineProduct(): Promise<EngineProduct> {
    if (this.product?.address === this.deps.docker.endpoint.address) return this.product.product;
    return (await this.ping(5_000)).product;
  }

  fixHint(): string {
    return dockerFixHint(this.deps.docker.endpoint);
  }

  async create(spec: SandboxSpec): Promise<DockerSandbox> {
    const runtime = spec.isolation === 'strong' ? await this.gvisorRuntime(spec) : 'runc';
    // A unix socket made inside a gVisor sandbox is not seen by the host: gVisor sandboxes attach.
    const socket = this.channel === 'socket' && spec.isolation !== 'strong';
    const sandbox = new DockerSandbox(spec, {
      docker: this.deps.docker,
      engineProduct: await this.engineProduct(),
      events: this.deps.events,
      identity: this.deps.identity,
      workspaces: this.workspaces,
      log: this.deps.log,
      runtime,
      ...(socket ? { socketRoot: this.deps.instanceDir } : {}),
    });
    await sandbox.create();
    return sandbox;
  }

  /** A kept session's sandbox from its record: its channel and runtime as they were made (its container is fixed). */
  async reopen(spec: SandboxSpec, record: SandboxRecord, options: ReopenOptions = {}): Promise<DockerSandbox> {
    assertKeptRecord(spec, record, dirname(this.deps.instanceDir));
    const sandbox = new DockerSandbox(spec, {
      docker: this.deps.docker,
      engineProduct: await this.engineProduct(),
      events: this.deps.events,
      identity: this.deps.identity,
      workspaces: this.workspaces,
      log: this.deps.log,
      runtime: record.runtime,
      ...(record.channel === 'socket' && record.agentDir ? { socketRoot: dirname(record.agentDir) } : {}),
    });
    await sandbox.adopt(record, options);
    return sandbox;
  }

  /** The gVisor runtime for a sandbox, or a clear refusal (Podman; not set up; no network with it on this engine). */
  private async gvisorRuntime(spec: SandboxSpec): Promise<string> {
    const { runtimes, product, version } = await this.ping(5_000);
    if (product === 'podman') throw podmanGvisorRefusal(version);
    const runtime = gvisorRuntimeFor(runtimes, spec.network !== undefined);
    if (spec.network !== undefined) {
      // Tried once per engine and network: a container that only runs `true` (nothing is sent anywhere).
      const key = `${this.deps.docker.endpoint.address}\u0000${spec.network}`;
      let probe = this.gvisorNetworkProbes.get(key);
      if (!probe) {
        probe = probeGvisorNetwork(this.deps.docker, { runtime, image: spec.image, network: spec.network, identity: this.deps.identity });
        this.gvisorNetworkProbes.set(key, probe);
      }
      const problem = await probe;
      if (problem) {
        this.deps.log.warn('gVisor cannot give a sandbox a network on this engine', { network: spec.network, engineError: problem });
        throw gvisorNetworkRefusal(problem);
      }
    }
    return runtime;
  }

  /** Whether gVisor with a network starts on this engine, per engine and network: undefined = it does, else why not. */
  private readonly gvisorNetworkProbes = new Map<string, Promise<string | undefined>>();

  onLost(listener: () => void): void {
    this.deps.events.onLost(() => listener());
  }
}
