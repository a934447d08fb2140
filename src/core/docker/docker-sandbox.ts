import { chmod, chown, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_LIMITS } from '../../shared/domain/limits';
import type { ChannelKind } from '../../shared/domain/session';
import type { Logger } from '../log';
import type { AgentChannel } from '../sandbox/agent-channel';
import { connectUnixChannel } from '../sandbox/unix-socket-channel';
import type { HelperSpec, ReopenOptions, Sandbox, SandboxExecOptions, SandboxExecResult, SandboxFolder, SandboxRecord, SandboxSpec, SandboxState, SandboxStats } from '../sandbox/sandbox-backend';
import { SandpitError, isSandpitError } from '../../shared/api/errors';
import { attachChannel } from './attach-channel';
import { AGENT_DIR, CA_TRUST_ENV, PACKAGES_DIR } from '../sandbox/sandbox-paths';
import { SANDBOX_UID, SANDBOX_USER, hardenedContainerSpec } from './container-profile';
import type { DaemonEvents } from './daemon-events';
import type { ContainerSpec, DockerClient, EngineProduct } from './docker-client';
import { LABEL, sessionLabels } from './labels';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import type { WorkspaceStorage, WorkspaceVolume } from './workspace-storage';
import { newId } from '../util/ids';
import { cleanPackageArchive } from './package-archive';
import { checkOverlayVolumes, ensureOverlayVolume, isOverlayFolder, overlayVolumeName } from './overlay-volumes';
import { canonicalImageName } from './image-name';
import { weakerThanSandbox } from './profile-check';

/** How long connecting to the agent of a warm sandbox an earlier core left may take (it is up, or it is not taken). */
const LEFT_RUNNING_CONNECT_MS = 2_000;
/** How long reading or writing a package store's archive may take. */
const PACKAGE_ARCHIVE_TIMEOUT_MS = 300_000;


export interface DockerSandboxDeps {
  docker: DockerClient;
  events: DaemonEvents;
  identity: InstanceIdentity;
  /** This instance's folder for agent sockets (`<runRoot>/<instanceId>`); absent: the attach channel. */
  socketRoot?: string;
  /** What /workspace is on (a capped ext4 of its own, or a plain volume). */
  workspaces: WorkspaceStorage;
  /** The engine runtime it runs under (runc, or a gVisor runtime). */
  runtime: string;
  /** Docker, or Podman (which never reports memory kills). */
  engineProduct: EngineProduct;
  log: Logger;
}

/**
 * One session's container on a Docker engine: its workspace volume, its package volume, the per-session
 * socket folder (socket channel) and the container under the hardened profile.
 */
export class DockerSandbox implements Sandbox {
  readonly sessionId: string;
  readonly channel: ChannelKind;
  readonly runtime: string;
  readonly unreportedOom: string | undefined;
  containerId = '';
  private readonly volumeName: string;
  private readonly packagesVolume: string;
  private readonly agentDir: string | undefined;
  private readonly log: Logger;
  private workspace: WorkspaceVolume | undefined;
  /** A kept session's container from an earlier core: checked before each start. */
  private adopted = false;
  /** A warm sandbox an earlier core left running: its first start only connects to its agent. */
  private leftRunning = false;
  /** Folders of this computer (a warm-pool sandbox has none); replaceFolders makes a new container for others. */
  private folders: SandboxFolder[];

  constructor(
    private readonly spec: SandboxSpec,
    private readonly deps: DockerSandboxDeps,
  ) {
    this.sessionId = spec.sessionId;
    this.volumeName = `sandpit-ws-${spec.sessionId}`;
    this.packagesVolume = `sandpit-pkg-${spec.sessionId}`;
    this.agentDir = deps.socketRoot ? join(deps.socketRoot, spec.sessionId) : undefined;
    this.channel = this.agentDir ? 'socket' : 'attach';
    this.runtime = deps.runtime;
    this.unreportedOom = deps.engineProduct === 'podman' ? 'Podman' : undefined;
    this.log = deps.log.child({ sessionId: spec.sessionId });
    this.folders = [...(spec.folders ?? [])];
  }

  /** Creates the volumes, the agent folder and the container (not started). */
  async create(): Promise<void> {
    const { docker, identity } = this.deps;
    const { limits } = this.spec;
    const labels = sessionLabels(identity, this.sessionId);
    try {
      this.workspace = await this.deps.workspaces.prepare(this.sessionId, limits);
      await docker.createVolume({ name: this.volumeName, labels, ...(this.workspace.driverOpts ? { driverOpts: this.workspace.driverOpts } : {}) });
      await docker.createVolume({ name: this.packagesVolume, labels });
      if (this.agentDir) await mkdir(this.agentDir, { recursive: true, mode: 0o700 });
      await this.checkFolders();
      await this.ensureOverlays();
      this.containerId = await docker.createContainer(this.containerSpec());
      this.log.debug('created session container', { containerId: this.containerId });
    } catch (error) {
      await this.remove().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Takes over the stopped container and storage of a kept session (after Sandpit restarted). The record
   * is input from a file: the container must be one Sandpit made for this session (its labels), made as
   * this session's spec says (network, runtime, bind mounts), and its disk where Sandpit keeps disks —
   * else nothing of it is taken over, and nothing it names is touched (DENIED, saying why). With `remake`, the
   * container is made again from the spec instead (see ReopenOptions), keeping its volumes and disk.
   */
  async adopt(record: SandboxRecord, options: ReopenOptions = {}): Promise<void> {
    const { docker } = this.deps;
    const found = await docker.listContainers({ [LABEL.managed]: 'true', [LABEL.session]: this.sessionId });
    const named = found.some((c) => c.id === record.containerId);
    if (!named && !(options.remake && (await this.containerGone(record.containerId)))) {
      throw new SandpitError('DENIED', `The record of kept session ${this.sessionId} names container ${record.containerId.slice(0, 12)}, which is not one Sandpit made for that session: it is not taken over, and nothing is done to that container.`, { reason: 'foreign-container' });
    }
    if (named) await this.assertMadeAsRecorded(record, options.remake === true);
    if (options.running) {
      if (options.remake || !named || this.channel !== 'socket' || !(await this.deps.docker.inspectContainer(record.containerId)).running) {
        throw new SandpitError('CONTAINER_DIED', `The warm sandbox ${this.sessionId} an earlier Sandpit left is not running any more: it is not taken over.`);
      }
      this.leftRunning = true;
    }
    this.workspace = this.deps.workspaces.reopen(record.workspace, this.sessionId);
    if (options.remake) {
      // Its installers are gone with their core; its own container(s) — a crash may have left a second one — go too.
      const old = found.filter((c) => c.labels[LABEL.role] === undefined).map((c) => c.id);
      this.log.info('making the kept session container again for this core', { containerIds: old });
      for (const id of old) await docker.removeContainer(id);
      await this.checkFolders();
      await this.ensureOverlays();
      this.containerId = await docker.createContainer(this.containerSpec());
      this.log.info('made the kept session container again', { containerId: this.containerId });
    } else {
      // the overlays it mounts must still be the volumes Sandpit made for them
      await checkOverlayVolumes(docker, this.folders);
      this.containerId = record.containerId;
      this.deps.events.follow(record.containerId);
    }
    this.adopted = true;
  }

  /** Whether the engine has no container with this id at all (one it has, but not labelled for this session, is someone else's). */
  private async containerGone(containerId: string): Promise<boolean> {
    try {
      await this.deps.docker.inspectContainer(containerId);
      return false;
    } catch (error) {
      if (isSandpitError(error, 'NOT_FOUND')) return true;
      throw error;
    }
  }

  /** The kept container was made as the record and this spec say (image and runtime; network and mounts unless it is made again). */
  private async assertMadeAsRecorded(record: SandboxRecord, remake: boolean): Promise<void> {
    const made = await this.deps.docker.inspectContainer(record.containerId);
    const wantedNetwork = this.spec.network ?? 'none';
    // Runtimes are compared by kind: Podman names its default one "oci" where Docker says "runc".
    const gvisor = (runtime: string | undefined): boolean => runtime?.startsWith('runsc') === true;
    // A container made again gets this core's network: the one it had may be gone with its core.
    const networkDiffers = !remake && (made.networkMode ?? wantedNetwork) !== wantedNetwork;
    if (networkDiffers || gvisor(made.runtime) !== gvisor(record.runtime) || canonicalImageName(made.image ?? this.spec.image) !== canonicalImageName(this.spec.image)) {
      throw new SandpitError(
        'DENIED',
        `The container of kept session ${this.sessionId} was made from ${made.image ?? '?'} with network "${made.networkMode ?? '?'}" and runtime ${made.runtime ?? '?'}, not from ${this.spec.image} with network "${wantedNetwork}" and runtime ${record.runtime} as its record says: it is not taken over.`,
        { reason: 'record-mismatch' },
      );
    }
    if (remake) return;
    // Its labels say whose it is; its protections are read back too (a container made weaker is not used).
    const wanted = this.containerSpec();
    const floor = { user: wanted.user, memory: Number(wanted.hostConfig.Memory), nanoCpus: Number(wanted.hostConfig.NanoCpus), pidsLimit: Number(wanted.hostConfig.PidsLimit) };
    const weaker = made.profile ? weakerThanSandbox(made.profile, floor) : [];
    if (weaker.length > 0) {
      throw new SandpitError('DENIED', `The container of session ${this.sessionId} was not made with a sandbox's protections (${weaker.join('; ')}): it is not taken over, and nothing is done to it.`, { reason: 'record-mismatch' });
    }
    const expected = [
      ...(this.agentDir ? [`${this.agentDir}\u0000${AGENT_DIR}\u0000rw`] : []),
      ...this.folders.filter((f) => !isOverlayFolder(f)).map((f) => `${f.layerPath ?? f.hostPath}\u0000${f.mountPath}\u0000${f.readOnly && !f.layerPath ? 'ro' : 'rw'}`),
    ].sort();
    const actual = (made.binds ?? []).map((b) => `${b.source}\u0000${b.target}\u0000${b.readOnly ? 'ro' : 'rw'}`).sort();
    if (made.binds !== undefined && JSON.stringify(expected) !== JSON.stringify(actual)) {
      throw new SandpitError('DENIED', `The container of kept session ${this.sessionId} mounts other folders of this computer than its record says: it is not taken over.`, { reason: 'record-mismatch' });
    }
  }

  /**
   * The shared folders checked again right before a container that mounts them is made or started (the
   * engine follows a bind mount's source at every start): what is mounted is what was just checked.
   */
  private async checkFolders(): Promise<void> {
    if (this.folders.length === 0 || !this.spec.checkFolders) return;
    this.folders = await this.spec.checkFolders(this.folders);
  }

  /** The engine volumes of the overlays among the folders (made, or checked when they are there). */
  private async ensureOverlays(): Promise<void> {
    const labels = sessionLabels(this.deps.identity, this.sessionId, { [LABEL.role]: 'review-layer' });
    for (const folder of this.folders) if (isOverlayFolder(folder)) await ensureOverlayVolume(this.deps.docker, folder, labels);
  }

  /** Removes the overlay volumes of folders this sandbox no longer mounts (after its container is gone or replaced). */
  private async dropOverlays(keep: readonly SandboxFolder[], drop: readonly SandboxFolder[]): Promise<void> {
    const kept = new Set(keep.filter(isOverlayFolder).map(overlayVolumeName));
    for (const folder of drop) {
      if (!isOverlayFolder(folder) || kept.has(overlayVolumeName(folder))) continue;
      await this.deps.docker.removeVolume(overlayVolumeName(folder)).catch((error: unknown) => this.log.warn('could not remove an overlay volume', { volume: overlayVolumeName(folder), error: error instanceof Error ? error.message : String(error) }));
    }
  }

  record(): SandboxRecord {
    return {
      containerId: this.containerId,
      channel: this.channel,
      runtime: this.runtime,
      ...(this.agentDir ? { agentDir: this.agentDir } : {}),
      ...(this.workspace?.disk ? { workspace: this.workspace.disk } : {}),
    };
  }

  /** The session container's spec: the hardened profile with this sandbox's volumes, channel and shared folders. */
  private containerSpec(): ContainerSpec {
    const labels = sessionLabels(this.deps.identity, this.sessionId);
    const groups = [...new Set(this.folders.flatMap((f) => (f.groupId === undefined ? [] : [f.groupId])))];
    return hardenedContainerSpec({
      name: `sandpit-${this.sessionId}`,
      image: this.spec.image,
      limits: this.spec.limits,
      labels,
      workspaceVolume: this.volumeName,
      // Read-only for the session: only the installer helper writes there (the volume is on host disk,
      // outside every size cap the session has).
      readOnlyVolumes: { [this.packagesVolume]: PACKAGES_DIR },
      agentHostDir: this.agentDir,
      network: this.spec.network,
      // The python image serves bash sessions too: SANDPIT_LANGUAGE=bash puts its agent in one-shot command mode.
      env: { ...this.spec.env, SANDPIT_LANGUAGE: this.spec.language },
      // runc is the engine's default: named only when it is another one.
      ...(this.runtime === 'runc' ? {} : { runtime: this.runtime }),
      sharedFolders: this.folders.map((f) => ({
        hostPath: f.hostPath,
        mountPath: f.mountPath,
        readOnly: f.readOnly,
        ...(f.layerPath ? { layerPath: f.layerPath } : {}),
        ...(isOverlayFolder(f) ? { overlayVolume: overlayVolumeName(f) } : {}),
      })),
      ...(this.spec.caDir ? { caDir: this.spec.caDir } : {}),
      ...(groups.length ? { groupAdd: groups } : {}),
    });
  }

  async replaceFolders(folders: SandboxFolder[]): Promise<void> {
    const { docker, events } = this.deps;
    const previous = this.containerId;
    const checked = folders.length && this.spec.checkFolders ? await this.spec.checkFolders(folders) : [...folders];
    this.log.info('replacing the session container for new shared folders', { containerId: previous, folders: folders.length });
    const before = this.folders;
    await docker.removeContainer(previous);
    events.forget(previous);
    this.folders = checked;
    await this.ensureOverlays();
    this.containerId = await docker.createContainer(this.containerSpec());
    this.log.info('replaced the session container', { containerId: this.containerId });
    await this.dropOverlays(this.folders, before);
  }

  async start(timeoutMs: number): Promise<AgentChannel> {
    const { docker } = this.deps;
    if (this.adopted) await this.checkAdopted();
    if (this.leftRunning && this.agentDir) {
      // Taken over running: its agent listens already (a new connection replaces the old core's).
      this.leftRunning = false;
      return connectUnixChannel(join(this.agentDir, 'agent.sock'), Math.min(timeoutMs, LEFT_RUNNING_CONNECT_MS));
    }
    await this.checkFolders();
    if (!this.agentDir) {
      // The agent only speaks when asked, so attaching after start loses nothing.
      await docker.startContainer(this.containerId);
      return attachChannel(docker, this.containerId, this.log);
    }
    await rm(join(this.agentDir, 'agent.sock'), { force: true });
    // Writable by the sandbox user only until its agent has made its socket (see lockAgentDir).
    await mkdir(this.agentDir, { recursive: true, mode: 0o700 });
    await chown(this.agentDir, SANDBOX_UID, SANDBOX_UID);
    await chmod(this.agentDir, 0o700);
    await docker.startContainer(this.containerId);
    const channel = await connectUnixChannel(join(this.agentDir, 'agent.sock'), timeoutMs);
    await this.lockAgentDir(this.agentDir);
    return channel;
  }

  tunnelSocket(name: string): { hostPath: string; insidePath: string; uid: number } | undefined {
    if (!this.agentDir || !/^[a-z0-9-]{1,40}\.sock$/.test(name) || name === 'agent.sock') return undefined;
    return { hostPath: join(this.agentDir, name), insidePath: `${AGENT_DIR}/${name}`, uid: SANDBOX_UID };
  }

  async kill(): Promise<void> {
    await this.deps.docker.killContainer(this.containerId);
  }

  async state(): Promise<SandboxState> {
    const s = await this.deps.docker.inspectContainer(this.containerId);
    return { running: s.running, exitCode: s.exitCode, oomKilled: s.oomKilled };
  }

  oomSince(sinceMs: number): boolean {
    return this.deps.events.oomSince(this.containerId, sinceMs);
  }

  waitForOom(sinceMs: number, timeoutMs: number): Promise<boolean> {
    return this.deps.events.waitForOom(this.containerId, sinceMs, timeoutMs);
  }

  exec(argv: string[], options: SandboxExecOptions): Promise<SandboxExecResult> {
    return this.deps.docker.exec(this.containerId, argv, { ...options, user: SANDBOX_USER });
  }

  async runHelper(helper: HelperSpec): Promise<SandboxExecResult> {
    const spec = hardenedContainerSpec({
      name: `sandpit-install-${newId('i', 4)}`,
      image: this.spec.image,
      limits: { ...DEFAULT_LIMITS, memoryMb: 1024, pids: 512, tmpMb: 1024, cpus: 2 },
      labels: sessionLabels(this.deps.identity, this.sessionId, { [LABEL.role]: 'installer' }),
      network: helper.network,
      volumes: { [this.packagesVolume]: PACKAGES_DIR },
      cmd: helper.cmd,
      // A session that may use secrets: its installer trusts the same CA bundle, so an index among the secrets'
      // hosts (which the egress proxy opens, puts the secret in, and signs for) is reached as the session would.
      env: { HOME: '/tmp', TMPDIR: '/tmp', ...helper.env, ...(this.spec.caDir ? CA_TRUST_ENV : {}) },
      ...(this.spec.caDir ? { caDir: this.spec.caDir } : {}),
    });
    spec.openStdin = false;
    return this.deps.docker.runToCompletion(spec, { timeoutMs: helper.timeoutMs, maxOutputBytes: helper.maxOutputBytes });
  }

  async stats(): Promise<SandboxStats> {
    const s = await this.deps.docker.containerStats(this.containerId);
    return { ...s, memoryLimitBytes: s.memoryLimitBytes || this.spec.limits.memoryMb * 1024 * 1024 };
  }

  async exportPackages(maxBytes: number): Promise<{ tar: Buffer; bytes: number } | undefined> {
    // The engine reads the volume (read-only in the session, so its code never wrote there): links are
    // archived as links, never followed, and the archive is re-packed with only what is safe to unpack.
    const source = await this.deps.docker.getArchive(this.containerId, PACKAGES_DIR);
    const archive = await cleanPackageArchive(source, maxBytes, PACKAGE_ARCHIVE_TIMEOUT_MS);
    return archive ? { tar: archive.tar, bytes: archive.bytes } : undefined;
  }

  async importPackages(tar: Buffer): Promise<void> {
    const { docker } = this.deps;
    // Cleaned again as it is unpacked: the archive comes from the data folder, which may have been edited
    // (device nodes, set-id files, links out would otherwise land in the package store).
    const clean = await cleanPackageArchive(tar, tar.length, PACKAGE_ARCHIVE_TIMEOUT_MS, { topFolder: false });
    if (!clean) return;
    // A container that is created, never started: the engine unpacks into its writable mount of the store.
    const spec = hardenedContainerSpec({
      name: `sandpit-restore-${newId('r', 4)}`,
      image: this.spec.image,
      limits: DEFAULT_LIMITS,
      labels: sessionLabels(this.deps.identity, this.sessionId, { [LABEL.role]: 'installer' }),
      volumes: { [this.packagesVolume]: PACKAGES_DIR },
      cmd: ['true'],
      env: {},
    });
    spec.openStdin = false;
    const helperId = await docker.createContainer(spec);
    try {
      this.log.info('unpacking packages into the session', { bytes: clean.tar.length });
      await docker.putArchive(helperId, PACKAGES_DIR, clean.tar);
    } finally {
      await docker.removeContainer(helperId);
    }
  }

  async remove(): Promise<void> {
    const { docker, events } = this.deps;
    if (this.containerId) await docker.removeContainer(this.containerId);
    await this.dropOverlays([], this.folders);
    await docker.removeVolume(this.volumeName);
    await this.workspace?.release();
    await docker.removeVolume(this.packagesVolume);
    if (this.agentDir) await rm(this.agentDir, { recursive: true, force: true });
    events.forget(this.containerId);
  }

  /** A kept container may have been removed, or its disk detached, while Sandpit was away: say so plainly. */
  private async checkAdopted(): Promise<void> {
    const found = await this.deps.docker.listContainers({ [LABEL.session]: this.sessionId });
    if (!found.some((c) => c.id === this.containerId)) {
      throw new SandpitError('CONTAINER_DIED', `The container of session ${this.sessionId} is gone (it was removed outside Sandpit while Sandpit was not running). Stop this session and start a new one.`);
    }
    const problem = await this.workspace?.problem?.();
    if (problem) throw new SandpitError('CONTAINER_DIED', problem);
  }

  /**
   * Once the agent listens, its host dir goes back to us: sandboxed code can no longer write there
   * (the dir is on the host, outside every size cap). The socket itself stays as the agent made it.
   */
  private async lockAgentDir(dir: string): Promise<void> {
    const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
    const gid = typeof process.getgid === 'function' ? process.getgid() : 0;
    await chown(dir, uid, gid);
    await chmod(dir, 0o711);
  }
}
