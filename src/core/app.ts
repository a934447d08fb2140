import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SandpitError, toErrorBody } from '../shared/api/errors';
import { indexUrlsOf } from '../shared/domain/package-managers';
import { EventBus } from './events/event-bus';
import { createSandpitApi } from './api/sandpit-api';
import { ProcessManager } from './sessions/session-processes';
import { PreviewManager } from './previews/preview-manager';
import type { Handlers } from './api/api-types';
import type { SandpitConfig } from './config';
import { DaemonEvents } from './docker/daemon-events';
import { dockerImages } from './docker/docker-images';
import { dockerNetworks } from './docker/docker-networks';
import { DockerBackend } from './docker/docker-backend';
import type { DockerClient } from './docker/docker-client';
import { engineCandidates } from './docker/engine-candidates';
import { dockerFolderSharing } from './docker/docker-folder-sharing';
import type { FolderSharing } from './folders/folder-sharing';
import { openEngine } from './docker/open-engine';
import { engineSwitch } from './docker/engine-switch';
import { switchableDocker } from './docker/switchable-docker';
import { ExecutorImages } from './docker/executor-images';
import { chooseWorkspaceStorage } from './docker/choose-workspace-storage';
import { reapWorkspaceImages } from './docker/workspace-storage';
import { EngineMonitor } from './sessions/engine-monitor';
import { currentIdentity, isOwnerDead, markInstanceAlive, markInstanceDead } from './sandbox/instance-identity';
import { currentCommand, lockHome } from './home-lock';
import { recheckFolders } from './folders/recheck-folders';
import type { HomeLock } from './home-lock';
import type { InstanceIdentity } from './sandbox/instance-identity';
import { reapDeadInstances } from './docker/reaper';
import { WarmHandOver, isHandedOver } from './sessions/warm-handover';
import { KEPT_MARKERS_DIR, KeptStore, isKeptSession } from './sessions/kept-store';
import { removeAllBut } from './util/remove-all-but';
import { ArtifactStore } from './files/artifact-store';
import { AuditStore } from './audit/audit-store';
import { createLogger } from './log';
import { ensurePrivateDir } from './util/private-dir';
import type { EgressConnector } from './egress/egress-connector';
import { lazyEgressGateway } from './egress/egress-gateway-lazy';
import { EgressLog } from './egress/egress-log';
import { installSettingsFor } from './session-opening/environment-services';
import { warmDefaultPools } from './session-opening/warm-defaults';
import type { EnvironmentServices } from './session-opening/environment-services';
import { sessionConnection } from './session-opening/session-connection';
import { resolveBaseSource } from './docker/image-bases';
import { EnvironmentBuilder } from './environments/environment-builder';
import { EnvironmentStore } from './environments/environment-store';
import { sessionAllowedHosts } from './egress/session-allowed-hosts';
import type { SecretCipher } from './egress/secret-cipher';
import { secretServices } from './egress/secret-services';
import type { Logger } from './log';
import { SessionManager } from './sessions/session-manager';
import { ApprovalQueue } from './approvals/approval-queue';
import { GrantStore } from './approvals/grant-store';
import { ServedEndpoint } from './connect/served-endpoint';
import { clientRegistryOn } from './connect/client-registry';
import type { ClientRegistry } from './connect/client-registry';
import { applyLiveSettings } from './settings/live-settings';
import { withStoredSettings } from './settings/load-settings';
import type { SettingsStore } from './settings/settings-store';

export interface Sandpit {
  /** The effective configuration: defaults under the person's settings; live settings changes are written into it. */
  config: SandpitConfig;
  api: Handlers;
  bus: EventBus;
  docker: DockerClient;
  engine: EngineMonitor;
  sessions: SessionManager;
  artifacts: ArtifactStore;
  /** The audit log ($SANDPIT_HOME/audit.db), open for the core's lifetime. */
  audit: AuditStore;
  environments: EnvironmentServices;
  /** What folders of this computer shared with sessions are checked against. */
  folders: FolderSharing;
  identity: InstanceIdentity;
  log: Logger;
  settings: SettingsStore;
  approvals: ApprovalQueue;
  /** MCP clients connected now (the HTTP mount and the stdio host report them). */
  clients: ClientRegistry;
  /** Where this core is served and with which token (the HTTP server attaches itself). */
  endpoint: ServedEndpoint;
  /** Stops every session, removes this instance's containers and volumes, runs the reaper. */
  dispose(): Promise<void>;
}

export interface CreateSandpitOptions {
  logger?: Logger;
  /** A fixed engine (tests): a new Docker address is then neither tried nor used. Sandpit itself opens its own. */
  docker?: DockerClient;
  /** Opens the egress proxy's upstream connections (tests map allowed names to local addresses). */
  egressConnect?: EgressConnector;
  /** The settings store, when the caller opened it and already applied it to the config (startCore); else opened here. */
  settings?: SettingsStore;
  /** The event bus, when a surface made it before the core (the stdio host answers MCP while the core starts). */
  bus?: EventBus;
  /** The connected-clients registry, likewise (it reports on `bus`). */
  clients?: ClientRegistry;
  /** Seals secret values at rest: the desktop app injects the OS keychain (safeStorage); default: a key file in the data folder. */
  secretCipher?: SecretCipher;
  /** More CAs the egress proxy trusts upstream for secrets' hosts: tests' own CA only. */
  secretUpstreamCa?: readonly string[];
}

/**
 * The composition root: builds the engine, the stores and the API for one data folder — once the folder is
 * this core's alone (home-lock.ts): a second Sandpit on it is refused, saying which one holds it.
 */
export async function createSandpit(baseConfig: SandpitConfig, options: CreateSandpitOptions = {}): Promise<Sandpit> {
  await mkdir(baseConfig.home, { recursive: true, mode: 0o700 });
  const identity = currentIdentity();
  markInstanceAlive(identity.instanceId);
  const holder = { host: identity.host, pid: identity.pid, processStart: identity.processStart, instanceId: identity.instanceId, command: currentCommand(), startedAt: new Date().toISOString() };
  let lock: HomeLock;
  try {
    lock = await lockHome(baseConfig.home, holder, (h) => isOwnerDead({ host: h.host, pid: String(h.pid), start: h.processStart, instance: h.instanceId }, identity));
  } catch (error) {
    markInstanceDead(identity.instanceId);
    throw error;
  }
  let sandpit: Sandpit;
  try {
    sandpit = await assembleSandpit(baseConfig, options, identity);
  } catch (error) {
    markInstanceDead(identity.instanceId);
    await lock.release();
    throw error;
  }
  const core = sandpit;
  let released: Promise<void> | undefined;
  return {
    ...core,
    dispose: () =>
      (released ??= (async () => {
        // A Sandpit starting on this folder meanwhile waits for this one to let go, rather than refusing.
        await lock.closing().catch((error: unknown) => sandpit.log.warn('could not mark the data folder lock as closing', { error: toErrorBody(error).message }));
        await core.dispose().finally(() => lock.release());
      })()),
  };
}

async function assembleSandpit(baseConfig: SandpitConfig, options: CreateSandpitOptions, identity: InstanceIdentity): Promise<Sandpit> {
  const log = options.logger ?? createLogger({ app: 'sandpit' });
  // The settings over the defaults, unless the caller applied them already (startCore); a private copy either way.
  const { config, settings } = options.settings ? { config: { ...baseConfig }, settings: options.settings } : await withStoredSettings(baseConfig, log);
  const instanceDir = join(config.runRoot, identity.instanceId);
  // Agent sockets live here, bind-mounted into sandboxes: both folders must be ours alone.
  await ensurePrivateDir(config.runRoot);
  await mkdir(instanceDir, { mode: 0o711 });
  await ensurePrivateDir(instanceDir);
  await writeFile(join(instanceDir, 'owner.json'), JSON.stringify(identity), { mode: 0o600 });

  // One client for everything, whose engine can change while Sandpit runs (a new address in Settings).
  const engineClient = switchableDocker(options.docker ?? (await openEngine(config.dockerHost, log)).docker);
  const docker = engineClient.client;
  const bus = options.bus ?? new EventBus();
  const events = new DaemonEvents(docker, identity.instanceId, log);
  const workspacesRoot = join(config.home, 'workspaces');
  const isLocal = (): boolean => docker.endpoint.kind === 'local' && docker.endpoint.tcp !== true;
  const workspaces = await chooseWorkspaceStorage(config.workspaceStorage, isLocal(), workspacesRoot, identity, log, config.defaultLimits.workspaceMb);
  const backend = new DockerBackend({ docker, events, identity, instanceDir, channel: config.channel, workspaces, log });
  const engine = new EngineMonitor(backend, log);
  const artifacts = new ArtifactStore({ dir: join(config.home, 'artifacts') });
  // The core holds the data folder (home-lock.ts): its audit log has no other writer, so it writes through its journal.
  const audit = AuditStore.open({ path: join(config.home, 'audit.db'), identity, retentionDays: settings.current.auditRetentionDays, log, soleWriter: true });
  settings.onChange((next) => audit.setRetentionDays(next.auditRetentionDays));
  const executorImages = new ExecutorImages(docker, { imagesDir: config.imagesDir, overrides: config.images });
  const environmentStore = new EnvironmentStore({ dir: join(config.home, 'environments'), logger: log, presets: { offlineBase: resolveBaseSource() !== 'registry' } });
  const egressLog = new EgressLog((sessionId) => sessions.list().find((s) => s.id === sessionId)?.name);
  // A session's environment may allow more hosts than the package indexes.
  const allowedHostsOf = sessionAllowedHosts({ bus, store: environmentStore, sessions: () => sessions.list() });
  const networks = dockerNetworks(docker, identity);
  // Secrets (issue 18): sealed in the data folder, put in by the egress proxy for their own hosts only.
  const secrets = secretServices({
    home: config.home,
    instanceDir,
    ...(options.secretCipher ? { cipher: options.secretCipher } : {}),
    ...(options.secretUpstreamCa ? { upstreamCa: options.secretUpstreamCa } : {}),
    sessionOf: (sessionId) => {
      const info = sessions.list().find((s) => s.id === sessionId);
      return info && { environment: info.environment, secrets: (info.secrets ?? []).filter((s) => s.forSession).map((s) => s.name) };
    },
    onUsed: (event) => bus.emit('egress.allowed', event),
    onChanged: (names) => bus.emit('secrets.changed', { names }),
    log,
  });
  const gateway = lazyEgressGateway({
    networks,
    identity,
    allowedUrls: Object.values(indexUrlsOf(config)),
    extraHosts: config.egressExtraHosts,
    onRefused: (event) => bus.emit('egress.refused', event),
    onAllowed: (event) => bus.emit('egress.allowed', event),
    onOutcome: (event) => bus.emit('egress.outcome', event),
    extraHostsFor: (sessionId) => [...allowedHostsOf(sessionId), ...secrets.hostsOf(sessionId)],
    secrets: secrets.gateway,
    log,
    ...(options.egressConnect ? { connect: options.egressConnect } : {}),
  });
  /**
   * The egress proxy, started once the default language's first sandbox is up (its network, made beside that
   * container's start, slowed the start by 0.2–0.6 s on 2 cores), or by the first thing that needs it.
   */
  const startEgress = (): void => {
    if (config.egressProxy) void gateway.get().catch((error: unknown) => log.warn('the egress proxy did not start', { error: toErrorBody(error).message }));
  };
  /** What needs the egress proxy (a "packages" session, an install, a build) waits for its start (starting it if none was). */
  const egressUp = async (): Promise<void> => {
    if (config.egressProxy) await gateway.get().catch(() => undefined);
  };
  const builder = new EnvironmentBuilder({
    images: dockerImages(docker),
    store: environmentStore,
    bus,
    log,
    baseImage: (base) => executorImages.ensure(base),
    baseImageIfBuilt: (base) => executorImages.ifBuilt(base),
    settings: async () => {
      await egressUp();
      const egress = gateway.current();
      if (!egress && config.egressProxy) {
        const why = gateway.failure();
        throw new SandpitError('DOCKER_UNAVAILABLE', `The egress proxy that limits builds to the package indexes is not running${why ? ` (${why})` : ''}; set SANDPIT_EGRESS_PROXY=off to build over the install network without it.`);
      }
      // A credential for this build alone, revoked when it is over.
      const proxy = egress?.buildProxy();
      return {
        ...indexUrlsOf(config),
        buildNetwork: egress?.network ?? config.installNetwork ?? networks.openNetwork,
        ...(proxy ? { proxyEnv: proxy.env, release: proxy.release } : {}),
      };
    },
  });
  const environments: EnvironmentServices = { store: environmentStore, builder, egress: () => gateway.current(), egressProblem: () => gateway.failure(), egressSettled: () => egressUp(), openNetwork: networks.openNetwork, defaultIsolation: () => settings.current.defaultIsolation, secrets: secrets.environments };
  const kept = new KeptStore(config.home, config.runRoot, log);
  const handOver = new WarmHandOver(config.home, config.runRoot, log);
  /** What no reaper removes: kept sessions' sandboxes, and warm ones handed over between cores. */
  const spared = async (sessionId: string): Promise<boolean> => (await isKeptSession(config.runRoot, sessionId)) || (await isHandedOver(config.runRoot, sessionId, identity));
  const folders = dockerFolderSharing({
    docker,
    dataFolder: config.home,
    protectedFolders: () => settings.current.protectedFolders,
    identity,
    probeImage: () => executorImages.ensure('python'),
    reviewLayers: config.reviewLayers,
  });
  const sessions = new SessionManager({
    config,
    backend,
    engine,
    bus,
    artifacts,
    installSettings: async (sessionId) => {
      await egressUp();
      return installSettingsFor(config, { egress: gateway.current(), open: networks.openNetwork }, sessionId, gateway.failure());
    },
    // Every sandbox's egress credential is revoked as it is removed, warm ones that never became a session included...
    sandboxRemoved: (sessionId) => {
      gateway.current()?.revoke(sessionId);
      void handOver.forget(sessionId);
    },
    kept,
    openNetwork: networks.openNetwork,
    // A kept session on the package proxy is connected again by this core: its proxy (started now), a pass, its
    // environment's secrets and its own (by name) and this core's CA bundle.
    reconnectKept: async (record) => {
      if (config.egressProxy) await gateway.get();
      return sessionConnection(record.networkPolicy, record.environment?.id, environments, record.secrets);
    },
    checkFolders: (shared) => recheckFolders(shared, folders),
    dropLayers: async (layers) => {
      for (const layer of layers) await folders.reviews?.remove(layer);
    },
    handOver: { store: handOver, ms: config.handOverMs, self: identity },
    log,
  });
  // ...and a session's (its sandbox's and its installers') when the session is gone, whatever removed it.
  bus.on('session.removed', ({ sessionId }) => gateway.current()?.revoke(sessionId));
  // "Approve for this session" answers are kept in the data folder: a kept session's hold again after a restart.
  const approvals = new ApprovalQueue(bus, log.child({ component: 'approvals' }), new GrantStore(config.home, log.child({ component: 'approvals' })));
  bus.on('session.removed', ({ sessionId }) => approvals.forgetSession(sessionId));
  const processes = new ProcessManager(bus, log.child({ component: 'processes' }));
  const previews = new PreviewManager(bus, processes, log.child({ component: 'previews' }));
  const clients = options.clients ?? clientRegistryOn(bus);
  const endpoint = new ServedEndpoint(config.home, log);
  // Pool warm-ups run in the background; dispose waits for the one in flight.
  let warming: Promise<void> = Promise.resolve();
  const warm = (): void => {
    warming = warming.then(() => warmDefaultPools({ sessions, environments, log, afterFirst: startEgress }));
  };
  settings.onChange((next, previous) => {
    applyLiveSettings(next, previous, { config, sessions, egress: gateway, log, warm, switchEngine });
    bus.emit('settings.updated', settings.view());
  });

  engine.onChange((status) => bus.emit('engine.status', status));
  bus.on('egress.refused', (event) => egressLog.refused(event));
  bus.on('egress.allowed', (event) => egressLog.allowed(event));
  bus.on('egress.outcome', (event) => egressLog.outcome(event));
  backend.onLost(() => void engine.check());
  const reap = async (): Promise<void> => {
    try {
      const report = await reapDeadInstances(docker, identity, config.runRoot, { isKept: spared, markersDir: KEPT_MARKERS_DIR }, log);
      // After their volumes: a loop device still mounted cannot be detached. Kept sessions' disks stay (and handed-over ones).
      const images = await reapWorkspaceImages(workspacesRoot, identity, log, spared);
      if (report.containers.length + report.volumes.length + images.length > 0) log.info('reaped leftovers of dead instances', { ...report, workspaces: images });
    } catch (error) {
      log.warn('reaper failed', { error: toErrorBody(error).message });
    }
  };
  /**
   * Moves every session to another engine: the old one's sessions stop (their containers are removed
   * while it still answers), caches of its images are forgotten, and the new one is checked and warmed.
   * A fixed engine (tests) never moves.
   */
  const switcher = engineSwitch({
    engineClient,
    events,
    executorImages,
    backend,
    chooseWorkspaces: () => chooseWorkspaceStorage(config.workspaceStorage, isLocal(), workspacesRoot, identity, log, config.defaultLimits.workspaceMb),
    leave: async () => {
      await sessions.stopAll();
      await gateway.reset().catch((error: unknown) => log.warn('could not remove the egress network of the old engine', { error: toErrorBody(error).message }));
    },
    arrive: async () => {
      builder.forget();
      engine.markDown('Moving to the new Docker engine…');
      await engine.check();
    },
    log,
  });
  const switchEngine = (address: string | undefined): Promise<void> => (options.docker ? Promise.resolve() : switcher.switchEngine(address));
  // A new Docker address is tried before it is saved: one that does not answer is refused, saying why.
  settings.validateWith(async (next, previous) => {
    if (next.dockerHost === previous.dockerHost || options.docker) return;
    await switcher.probe(next.dockerHost);
  });

  // Kept sessions of an earlier core are listed (paused) once the engine answers, before anything is reaped.
  let restoring: Promise<unknown> | undefined;
  engine.onUp(async () => {
    await events.start();
    restoring ??= sessions
      .restoreKept()
      .catch((error: unknown) => log.warn('could not list the kept sessions', { error: toErrorBody(error).message }))
      // The approvals given for sessions that are here again (kept ones) hold again; the others are forgotten.
      .then(() => {
        const here = new Set(sessions.list().map((s) => s.id));
        return approvals.restoreGrants((id) => here.has(id));
      })
      .catch((error: unknown) => log.warn('could not read back the approvals given for sessions', { error: toErrorBody(error).message }));
    await restoring;
    // The warm pools first (the default language's before the others): the first run of a client waits on
    // nothing else. Leftovers and the egress proxy come behind (the proxy once that first sandbox is up: see
    // startEgress); pooled sandboxes need neither, and what needs the proxy waits for its start (egressUp).
    sessions.engineCameBack();
    warm();
    await reap();
  });
  await engine.check();

  let disposed: Promise<void> | undefined;
  return {
    config,
    api: createSandpitApi({ config, sessions, engine, artifacts, bus, environments, audit, settings, approvals, connect: { endpoint, clients }, egressLog, secrets: secrets.store, processes, previews, engines: { candidates: () => engineCandidates(config.dockerHost, docker.endpoint.address, log) }, folders }),
    folders,
    environments,
    bus,
    docker,
    engine,
    sessions,
    artifacts,
    audit,
    identity,
    log,
    settings,
    approvals,
    clients,
    endpoint,
    dispose: () =>
      (disposed ??= (async () => {
        approvals.dispose();
        // Their audit rows are completed while the log is open: stopped because Sandpit quit.
        processes.shutdown('Sandpit quit');
        await previews.shutdown();
        await sessions.dispose();
        // Stopped sessions took their grants with them; a kept session's stay on disk.
        await approvals.flushGrants();
        await warming;
        await backend.closeWorkspaces().catch((error: unknown) => log.warn('could not remove the empty workspace file systems', { error: toErrorBody(error).message }));
        audit.close();
        await gateway.close().catch((error: unknown) => log.warn('could not remove the egress network', { error: toErrorBody(error).message }));
        events.close();
        markInstanceDead(identity.instanceId);
        if (engine.current.state === 'up') await reap();
        engine.dispose();
        // Kept sessions' agent folders are bind-mounted into their stopped containers: they stay (and handed-over ones').
        await removeAllBut(instanceDir, spared, ['owner.json']);
      })()),
  };
}
