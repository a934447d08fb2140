import { toErrorBody } from '../../shared/api/errors';
import { LANGUAGES, LANGUAGE_ENTRIES } from '../../shared/domain/languages';
import type { Logger } from '../log';
import type { SessionManager } from '../sessions/session-manager';
import type { WarmTemplate } from '../sessions/warm-pools';
import { isolationOf } from './environment-services';
import type { EnvironmentServices } from './environment-services';

/**
 * Fills the warm pools of each language's built-in environment whose image is built (never builds
 * one): the default language's first sandbox alone, before anything else (a client's first call sent at
 * once waits for it, and on a 2-core machine every container starting beside it slowed it down ≈ 2×,
 * bench/floor.ts); then the first of every other language, one after the other in the languages' order
 * (JavaScript next: started together with the other three, its first sandbox took ≈ 2.2 s instead of ≈ 0.6,
 * bench/first-answer.ts); then the rest of each pool one by one, the default language's first. Before any of
 * them, the warm sandboxes the last core of this data folder left are taken over (warm-handover.ts): a pool they
 * fill starts nothing. When the last core left none, the default language's first sandbox starts as soon as its
 * own environment is looked up (the other languages' look-ups go on beside it).
 */
/** How long nothing more starts after sandboxes the last core left were taken over. */
export const QUIET_AFTER_TAKE_OVER_MS = 3_000;

export async function warmDefaultPools(deps: {
  sessions: SessionManager;
  environments: EnvironmentServices;
  log: Logger;
  /** Told once the default language's first sandbox is ready (or there is none to wait for). */
  afterFirst?: () => void;
}): Promise<void> {
  const { sessions, environments, log } = deps;
  if (!sessions.pooling) {
    deps.afterFirst?.();
    // Nothing is taken over: what the last core left goes to the reaper.
    await sessions.adoptHandedOver([]);
    return;
  }
  // Only ready environments are warmed (nothing is built); they are recorded as ready beside the first sandbox's
  // start (a write each, which that sandbox does not wait for: `recordReady`).
  const readyIds: string[] = [];
  const templateOf = async (id: string): Promise<WarmTemplate | undefined> => {
    try {
      const env = await environments.store.get(id);
      const image = await environments.builder.readyImage(env);
      if (image === undefined) return undefined;
      readyIds.push(id);
      return { language: env.language, image, isolation: isolationOf(env, environments) };
    } catch (error) {
      log.warn('could not warm the pool of a built-in environment', { environmentId: id, error: toErrorBody(error).message });
      return undefined;
    }
  };
  /** Each warmed environment recorded as ready with its image (on a fresh data folder, a write each). Never throws. */
  const recordReady = async (ids: readonly string[]): Promise<void> => {
    for (const id of ids) {
      await environments.builder.imageFor(id).catch((error: unknown) => log.warn('could not record a built-in environment as ready', { environmentId: id, error: toErrorBody(error).message }));
    }
  };
  const ids = [...new Set(LANGUAGES.map((language) => LANGUAGE_ENTRIES[language].defaultEnvironment))];
  // The default language's environment is looked up alone (a request to the engine), then the others' all at once.
  const [first, ...others] = ids;
  const firstTemplate = first === undefined ? undefined : await templateOf(first);
  const otherLookUps = others.map(templateOf);
  // With nothing left by the last core, the default language's first sandbox starts now: a client's first call
  // sent at once waits for it, not for the other languages' look-ups.
  const early = firstTemplate !== undefined && !(await sessions.handedOverWaiting()) ? sessions.warmUp([firstTemplate], 1) : undefined;
  // Awaited below (a failure is reported there).
  early?.catch(() => undefined);
  const otherTemplates = (await Promise.all(otherLookUps)).filter((t): t is WarmTemplate => t !== undefined);
  // Written while the engine starts the first sandbox: neither that sandbox nor a first call waits for them.
  const recorded = recordReady(readyIds);
  const taken = await sessions.adoptHandedOver([...(firstTemplate ? [firstTemplate] : []), ...otherTemplates]);
  // Sandboxes the last core left are ready: the client's first calls come now, so nothing else starts for a moment
  // (a container start, or the egress proxy's network, took the 2 cores from a call 1 s after connect: 0.4–0.8 s).
  if (taken > 0) await sessions.quiet(QUIET_AFTER_TAKE_OVER_MS);
  try {
    if (firstTemplate) await (early ?? sessions.warmUp([firstTemplate], 1));
  } finally {
    deps.afterFirst?.();
  }
  await recorded;
  for (const template of otherTemplates) await sessions.warmUp([template], 1);
  for (const template of [...(firstTemplate ? [firstTemplate] : []), ...otherTemplates]) await sessions.warmUp([template]);
}
