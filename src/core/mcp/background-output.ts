import { z } from 'zod';
import type { MethodInput } from '../../shared/api/contract';
import type { BackgroundRun } from '../../shared/domain/background-run';
import { RUN_STATES } from '../../shared/domain/background-run';
import type { ToolOutput } from './tool-output';
import type { ToolKit } from './tool-kit';

/** The `background` input of the run tools. */
export const backgroundField = z
  .boolean()
  .optional()
  .describe(
    'Run in the background: the call returns at once with a run_id; fetch output and the result with get_run, stop it with cancel_run. ' +
      'For work that takes minutes (training, test suites, scrapes). Default time limit 1 hour. Later calls on the session wait behind it.',
  );

/** What a background start answers (the run tools' other fields are then absent). */
export const backgroundStartShape = {
  run_id: z.string().optional().describe('Background runs only: the id to pass to get_run and cancel_run'),
  state: z.enum(RUN_STATES).optional().describe('Background runs only: queued | running | done | failed'),
};

/** A run tool's output shape that also fits a background start: every foreground field optional, the run's added. */
export function orBackgroundStart<S extends z.ZodRawShape>(shape: S): { [K in keyof S]: z.ZodOptional<S[K]> } & typeof backgroundStartShape {
  const optional = Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, (field as z.ZodType).optional()]));
  return { ...(optional as unknown as { [K in keyof S]: z.ZodOptional<S[K]> }), ...backgroundStartShape };
}

/** The text a model reads about a background run that started (or could not). */
export function startedText(run: BackgroundRun): string {
  const where = run.sessionId ? `session ${run.sessionId}` : 'your default session';
  return (
    `Started in the background as ${run.runId} (${where}; time limit ${Math.round(run.timeoutMs / 60_000)} min). ` +
    `Fetch its output and result with get_run {"run_id": "${run.runId}", "wait_seconds": 30}; stop it with cancel_run.` +
    (run.waiting ? ` Now ${run.waiting}.` : '')
  );
}

/** Starts a background run through the API and answers with its id at once. */
export async function startBackground(kit: ToolKit, input: MethodInput<'runs.start'>): Promise<ToolOutput<z.input<z.ZodObject<typeof backgroundStartShape>> & { session_id?: string }>> {
  const run = await kit.call('runs.start', input);
  return {
    structured: { run_id: run.runId, state: run.state, ...(run.sessionId ? { session_id: run.sessionId } : {}) },
    text: startedText(run),
  };
}
