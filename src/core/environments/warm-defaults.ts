import { toErrorBody } from '../../shared/api/errors';
import { LANGUAGES, RUNTIMES } from '../../shared/domain/runtimes';
import type { Logger } from '../log';
import type { SessionManager } from '../sessions/session-manager';
import { isolationOf } from './environment-services';
import type { EnvironmentServices } from './environment-services';

/**
 * Fills the warm pools of each language's built-in environment whose image is built (never builds
 * one), the default language first, so the first run of a new client finds a sandbox ready.
 */
export async function warmDefaultPools(deps: { sessions: SessionManager; environments: EnvironmentServices; log: Logger }): Promise<void> {
  const { sessions, environments, log } = deps;
  if (!sessions.pooling) return;
  const seen = new Set<string>();
  for (const language of LANGUAGES) {
    const id = RUNTIMES[language].defaultEnvironment;
    if (seen.has(id)) continue;
    seen.add(id);
    try {
      const env = await environments.store.get(id);
      if ((await environments.builder.status(env)).state !== 'ready') continue;
      sessions.warmUp([{ language: env.language, image: await environments.builder.imageFor(env.id), isolation: isolationOf(env, environments) }]);
    } catch (error) {
      log.warn('could not warm the pool of a built-in environment', { environmentId: id, error: toErrorBody(error).message });
    }
  }
}
