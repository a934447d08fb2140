import type { Handlers } from './api-types';
import type { BackgroundRuns } from './background-runs';

type BackgroundRunMethods = 'runs.start' | 'runs.get' | 'runs.cancel' | 'runs.list';

/** Background runs (issue 23): start one, fetch its output and result, cancel it, list them — only the caller's own. */
export function backgroundRunHandlers(runs: BackgroundRuns): Pick<Handlers, BackgroundRunMethods> {
  return {
    'runs.start': async (input, context) => runs.start(input, context),
    'runs.get': async (input, context) => runs.get(input, context),
    'runs.cancel': async ({ runId }, context) => runs.cancel(runId, context),
    'runs.list': async ({ sessionId }, context) => ({ runs: await runs.list(sessionId, context) }),
  };
}
