import { SandpitError } from '../../shared/api/errors';
import { defaultBaseFor } from '../../shared/domain/environment';
import type { NetworkPolicy } from '../../shared/domain/environment';
import type { EnvironmentBuilder } from '../environments/environment-builder';
import type { EnvironmentStore } from '../environments/environment-store';
import { importDependencies } from '../environments/import-definition';
import type { InstallProxy } from '../environments/package-installer';
import type { ContainerEnv } from '../sessions/session-types';
import type { HandlerKit, Handlers } from './sandpit-api';

type EnvironmentMethods =
  | 'environments.list'
  | 'environments.get'
  | 'environments.create'
  | 'environments.update'
  | 'environments.copy'
  | 'environments.remove'
  | 'environments.import'
  | 'environments.build'
  | 'sessions.saveAsEnvironment';

/** Where sessions of a network policy are attached: the egress network (packages) or a bridge (open). */
export interface EgressAccess {
  network: string;
  env(sessionId?: string): Record<string, string>;
  installerProxy(sessionId: string): InstallProxy;
}

export interface EnvironmentServices {
  store: EnvironmentStore;
  builder: EnvironmentBuilder;
  /** The egress proxy's network, when Sandpit runs one. */
  egress(): EgressAccess | undefined;
}

/** How a session of this policy is connected: nothing, the egress proxy only, or the open network. */
export function networkFor(policy: NetworkPolicy, services: EnvironmentServices): { network?: string; containerEnv?: ContainerEnv } {
  if (policy === 'none') return {};
  if (policy === 'open') return { network: 'bridge' };
  const egress = services.egress();
  if (!egress) throw new SandpitError('DOCKER_UNAVAILABLE', 'The egress proxy for the "packages" network policy is not running; sessions of this environment cannot start.');
  // Each session's proxy URL names it, so refusals are logged with the session.
  return { network: egress.network, containerEnv: (sessionId) => egress.env(sessionId) };
}

/** Environments: definitions (presets and the user's), imports from files, builds, "save session as environment". */
export function environmentHandlers(kit: HandlerKit, services: EnvironmentServices): Pick<Handlers, EnvironmentMethods> {
  const { store, builder } = services;
  const { bus, sessions } = kit;
  return {
    'environments.list': async () => ({ environments: await store.list() }),
    'environments.get': async ({ environmentId }) => store.get(environmentId),
    'environments.create': async (input) => {
      const env = await store.create(input);
      bus.emit('environment.updated', env);
      return env;
    },
    'environments.update': async ({ environmentId, patch }) => {
      const env = await store.update(environmentId, patch);
      bus.emit('environment.updated', env);
      return env;
    },
    'environments.copy': async ({ environmentId, name }) => {
      const env = await store.copy(environmentId, { name });
      bus.emit('environment.updated', env);
      return env;
    },
    'environments.remove': async ({ environmentId }) => {
      await store.remove(environmentId);
      bus.emit('environment.removed', { environmentId });
      return { environmentId, removed: true };
    },
    'environments.import': async ({ fileName, content, includeDev }) => importDependencies(fileName, content, { includeDev }),
    'environments.build': async ({ environmentId, force }) => builder.build(environmentId, force),
    'sessions.saveAsEnvironment': async ({ sessionId, name }, context) => {
      const info = sessions.access(sessionId, context.principal);
      const source = info.environment ? await store.get(info.environment) : undefined;
      const pip = info.language === 'javascript' ? [] : [...(source?.packages.pip ?? []), ...info.packages];
      const npm = info.language === 'javascript' ? [...(source?.packages.npm ?? []), ...info.packages] : [];
      const env = await store.create({
        name,
        language: info.language,
        base: source?.base ?? defaultBaseFor(info.language),
        packages: { pip: [...new Set(pip)], npm: [...new Set(npm)], apt: source?.packages.apt ?? [] },
        network: source?.network ?? 'none',
        limits: source?.limits ?? {},
        description: `Saved from session ${sessionId}`,
      });
      bus.emit('environment.updated', env);
      return env;
    },
  };
}
