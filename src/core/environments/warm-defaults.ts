import { toErrorBody } from '../../shared/api/errors';
import { LANGUAGES, RUNTIMES } from '../../shared/domain/runtimes';
import type { Logger } from '../log';
import type { SessionManager } from '../sessions/session-manager';
import { isolationOf } from './environment-services';
import type { EnvironmentServices } from './environment-services';

/**
 * Fills the warm pools of each language's built-in environment whose image is built (never builds
 * one), one sandbox at a time: first one for each language, the default language first, then the rest
 * of each pool. The first run of a new client finds a sandbox ready, in any language, soonest, and no
 * start competes with another.
 */
export async function warmDefaultPools(deps: { sessions: SessionManager; environments: EnvironmentServices; log: Logger }): Promise<void> {
  const { sessions, environments, log } = deps;
  if (!sessions.pooling) return;
  const templates: Array<Parameters<SessionManager['warmUp']>[0][number]> = [];
  const seen = new Set<string>();
  for (const language of LANGUAGES) {
    const id = RUNTIMES[language].defaultEnvironment;
    if (seen.has(id)) continue;
    seen.add(id);
    try {
      const env = await environments.store.get(id);
      if ((await environments.builder.status(env)).state !== 'ready') continue;
      const template = { language: env.language, image: await environments.builder.imageFor(env.id), isolation: isolationOf(env, environments) };
      templates.push(template);
      // The first language's first sandbox starts at once, before the others are even looked at.
      if (templates.length === 1) await sessions.warmUp([template], 1);
    } catch (error) {
      log.warn('could not warm the pool of a built-in environment', { environmentId: id, error: toErrorBody(error).message });
    }
  }
  for (const template of templates.slice(1)) await sessions.warmUp([template], 1);
  for (const template of templates) await sessions.warmUp([template]);
}
