import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { toErrorBody } from '../shared/api/errors';
import { EventBus } from './api/event-bus';
import { createSandpitApi } from './api/sandpit-api';
import type { Handlers } from './api/sandpit-api';
import type { SandpitConfig } from './config';
import { DaemonEvents } from './docker/daemon-events';
import type { DockerClient } from './docker/docker-client';
import { DockerodeClient } from './docker/dockerode-client';
import { EngineMonitor } from './docker/engine-monitor';
import { currentIdentity, markInstanceAlive, markInstanceDead } from './docker/instance-identity';
import type { InstanceIdentity } from './docker/labels';
import { reapDeadInstances } from './docker/reaper';
import { ArtifactStore } from './files/artifact-store';
import { createLogger } from './log';
import type { EgressAccess, EnvironmentServices } from './api/environment-handlers';
import { ensureExecutorImage } from './docker/image-builder';
import { resolveBaseSource } from './docker/image-bases';
import { EnvironmentBuilder } from './environments/environment-builder';
import { EnvironmentStore } from './environments/environment-store';
import type { Logger } from './log';
import { SessionManager } from './sessions/session-manager';

export interface Sandpit {
  config: SandpitConfig;
  api: Handlers;
  bus: EventBus;
  docker: DockerClient;
  engine: EngineMonitor;
  sessions: SessionManager;
  artifacts: ArtifactStore;
  environments: EnvironmentServices;
  identity: InstanceIdentity;
  log: Logger;
  /** Stops every session, removes this instance's containers and volumes, runs the reaper. */
  dispose(): Promise<void>;
}

export interface CreateSandpitOptions {
  logger?: Logger;
  docker?: DockerClient;
}

/** The composition root: builds the engine, the stores and the API for one data folder. */
export async function createSandpit(config: SandpitConfig, options: CreateSandpitOptions = {}): Promise<Sandpit> {
  const log = options.logger ?? createLogger({ app: 'sandpit' });
  await mkdir(config.home, { recursive: true, mode: 0o700 });
  const identity = currentIdentity();
  markInstanceAlive(identity.instanceId);
  const instanceDir = join(config.runRoot, identity.instanceId);
  await mkdir(config.runRoot, { recursive: true, mode: 0o711 });
  await mkdir(instanceDir, { recursive: true, mode: 0o711 });
  await writeFile(join(instanceDir, 'owner.json'), JSON.stringify(identity), { mode: 0o600 });

  const docker = options.docker ?? new DockerodeClient({ host: config.dockerHost, logger: log });
  const bus = new EventBus();
  const engine = new EngineMonitor(docker, log);
  const events = new DaemonEvents(docker, identity.instanceId, log);
  const artifacts = new ArtifactStore({ dir: join(config.home, 'artifacts') });
  const sessions = new SessionManager({ config, docker, events, engine, bus, artifacts, identity, instanceDir, log });
  const environmentStore = new EnvironmentStore({ dir: join(config.home, 'environments'), logger: log, presets: { offlineBase: resolveBaseSource() !== 'registry' } });
  let egress: EgressAccess | undefined;
  const builder = new EnvironmentBuilder({
    docker,
    store: environmentStore,
    bus,
    log,
    baseImage: (base) => ensureExecutorImage(docker, base, { imagesDir: config.imagesDir }),
    settings: () => ({ pipIndexUrl: config.pipIndexUrl, npmRegistryUrl: config.npmRegistryUrl, buildNetwork: config.installNetwork, proxyEnv: egress?.env() }),
  });
  const environments: EnvironmentServices = { store: environmentStore, builder, egress: () => egress };

  engine.onChange((status) => bus.emit('engine.status', status));
  events.onLost(() => void engine.check());
  const reap = async (): Promise<void> => {
    try {
      const report = await reapDeadInstances(docker, identity, config.runRoot, log);
      if (report.containers.length + report.volumes.length > 0) log.info('reaped leftovers of dead instances', { ...report });
    } catch (error) {
      log.warn('reaper failed', { error: toErrorBody(error).message });
    }
  };
  engine.onUp(async () => {
    await events.start();
    await reap();
    sessions.engineCameBack();
  });
  await engine.check();
  if (engine.current.state === 'up') sessions.warmUp(Object.keys(config.images) as Array<keyof typeof config.images>);

  let disposed: Promise<void> | undefined;
  return {
    config,
    api: createSandpitApi({ config, sessions, engine, docker, artifacts, bus, environments }),
    environments,
    bus,
    docker,
    engine,
    sessions,
    artifacts,
    identity,
    log,
    dispose: () =>
      (disposed ??= (async () => {
        await sessions.dispose();
        events.close();
        markInstanceDead(identity.instanceId);
        if (engine.current.state === 'up') await reap();
        engine.dispose();
        await rm(instanceDir, { recursive: true, force: true });
      })()),
  };
}
