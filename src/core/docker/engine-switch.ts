import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';
import type { DaemonEvents } from './daemon-events';
import type { DockerBackend } from './docker-backend';
import type { DockerClient } from './docker-client';
import type { ExecutorImages } from './executor-images';
import { openEngine } from './open-engine';
import type { SwitchableDocker } from './switchable-docker';
import type { WorkspaceStorage } from './workspace-storage';

export interface EngineSwitchDeps {
  /** The client everything holds; a move points it at the new engine. */
  engineClient: SwitchableDocker;
  events: DaemonEvents;
  executorImages: ExecutorImages;
  backend: DockerBackend;
  /** The workspace storage for the engine in use now (a remote engine's differs). */
  chooseWorkspaces(): Promise<WorkspaceStorage>;
  /** Before the move, while the old engine still answers: its sessions stop, its egress network goes. */
  leave(): Promise<void>;
  /** Once the new engine is in use: caches of the old one's images are forgotten and the new one is checked. */
  arrive(): Promise<void>;
  log: Logger;
}

export interface EngineSwitch {
  /** Moves every session to the engine at `address`; moves run one after the other, the last one saved wins. */
  switchEngine(address: string | undefined): Promise<void>;
  /** Refuses, in plain words, an address where no engine answers (tried before it is saved). */
  probe(address: string | undefined): Promise<void>;
}

/** Moving Sandpit to another Docker engine while it runs (a new address in Settings). */
export function engineSwitch(deps: EngineSwitchDeps): EngineSwitch {
  const { engineClient, log } = deps;
  const moveTo = async (address: string | undefined): Promise<void> => {
    const next: DockerClient = (await openEngine(address, log)).docker;
    log.info('moving to another Docker engine', { from: engineClient.client.endpoint.address, to: next.endpoint.address });
    await deps.leave();
    deps.events.close();
    engineClient.use(next);
    deps.executorImages.forget();
    deps.backend.useWorkspaces(await deps.chooseWorkspaces());
    await deps.arrive();
  };
  let moving: Promise<void> = Promise.resolve();
  return {
    switchEngine: (address: string | undefined): Promise<void> => {
      const run = moving.then(() => moveTo(address));
      moving = run.catch(() => undefined);
      return run;
    },
    probe: async (address: string | undefined): Promise<void> => {
      const { docker: probe } = await openEngine(address, log);
      try {
        await probe.ping(5_000);
      } catch (error) {
        throw new SandpitError(
          'INVALID_INPUT',
          `There is no Docker engine answering at ${address ?? probe.endpoint.address}. Check the address (it looks like unix:///var/run/docker.sock or tcp://host:2376), or start Docker there first.`,
          { fields: ['patch.dockerHost'], cause: toErrorBody(error).message },
        );
      }
    },
  };
}
