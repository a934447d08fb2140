import { defaultBaseFor } from '../../shared/domain/environment';
import { packageManagerOf } from '../../shared/domain/languages';
import { MANAGER_IDS, PACKAGE_MANAGERS } from '../../shared/domain/package-managers';
import type { ManagerId } from '../../shared/domain/package-managers';
import { importDependencies } from '../importers/import-definition';
import type { EnvironmentServices } from '../session-opening/environment-services';
import { shareFolders } from '../folders/share-folders';
import type { Handlers } from './api-types';
import type { HandlerKit } from './handler-kit';

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

/** Environments: definitions (presets and the user's) with their status, imports from files, builds, "save session as environment". */
export function environmentHandlers(kit: HandlerKit, services: EnvironmentServices): Pick<Handlers, EnvironmentMethods> {
  const { store, builder } = services;
  const { bus, sessions } = kit;
  const changed = async (env: Parameters<typeof builder.view>[0]): ReturnType<typeof builder.view> => {
    const view = await builder.view(env);
    bus.emit('environment.updated', view);
    return view;
  };
  /** The secrets its sessions may use (names and hosts, never values): what assistants see of them. */
  const withSecrets = async (view: Awaited<ReturnType<typeof builder.view>>): ReturnType<typeof builder.view> => {
    const uses = (await kit.secrets?.usesOf(view.id)) ?? [];
    return uses.length ? { ...view, secrets: uses } : view;
  };
  return {
    'environments.list': async () => ({ environments: await Promise.all((await store.list()).map(async (env) => withSecrets(await builder.view(env)))) }),
    'environments.get': async ({ environmentId }) => withSecrets(await builder.view(await store.get(environmentId))),
    // Its folders are checked when it is saved (and again when each session starts, in openSession).
    'environments.create': async (input) => {
      await shareFolders(input.folders ?? [], kit.folders);
      return changed(await store.create(input));
    },
    'environments.update': async ({ environmentId, patch }) => {
      await shareFolders(patch.folders ?? [], kit.folders);
      return changed(await store.update(environmentId, patch));
    },
    'environments.copy': async ({ environmentId, name }) => changed(await store.copy(environmentId, { name })),
    'environments.remove': async ({ environmentId }) => {
      await store.remove(environmentId);
      // Its secrets stay, attached to no environment it had (issue 18).
      await kit.secrets?.forgetEnvironment(environmentId);
      bus.emit('environment.removed', { environmentId });
      return { environmentId, removed: true };
    },
    'environments.import': async ({ fileName, content, includeDev }) => importDependencies(fileName, content, { includeDev }),
    'environments.build': async ({ environmentId, force }) => builder.view(await builder.build(environmentId, force)),
    'sessions.saveAsEnvironment': async ({ sessionId, name }, context) => {
      const info = sessions.access(sessionId, context.principal).info();
      const source = info.environment ? await store.get(info.environment) : undefined;
      // The session's installer (the registry's) gets the packages installed at run time.
      const manager = packageManagerOf(info.language);
      // Every manager's list of its environment (the system's too), the session's own with what it installed.
      const packages = Object.fromEntries(
        MANAGER_IDS.map((m) => [m, [...new Set([...(source?.packages[m] ?? []), ...(m === manager && PACKAGE_MANAGERS[m].layer === 'language' ? info.packages : [])])]]),
      ) as Record<ManagerId, string[]>;
      return changed(
        await store.create({
          name,
          language: info.language,
          base: source?.base ?? defaultBaseFor(info.language),
          packages,
          network: source?.network ?? 'none',
          limits: source?.limits ?? {},
          description: `Saved from the session "${info.name}"`,
        }),
      );
    },
  };
}
