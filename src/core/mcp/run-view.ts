import { z } from 'zod';
import type { BackgroundRun } from '../../shared/domain/background-run';
import { RUN_KINDS, RUN_STATES } from '../../shared/domain/background-run';
import { formatDuration } from './tool-fields';

/** A background run as the run tools show it (snake_case view of the contract's BackgroundRun). */
export const runViewShape = {
  run_id: z.string().describe('Id of the run'),
  kind: z.enum(RUN_KINDS).describe('code (execute_code) | command (run_command) | file (run_file)'),
  state: z.enum(RUN_STATES).describe('queued (waiting for its session or an approval) | running | done (see status) | failed (see error)'),
  session_id: z.string().optional().describe('Session it runs in, once known'),
  what: z.string().describe('The code, command or file, abbreviated'),
  status: z.string().optional().describe('Once done: ok | error | timeout | interrupted | oom | killed'),
  waiting: z.string().optional().describe('While queued: what it waits for'),
  error: z.object({ code: z.string(), message: z.string() }).optional().describe('When failed: why it could not run'),
  cancel_requested: z.boolean().describe('A cancel was asked for'),
  created_at: z.string().describe('When it was started (ISO time)'),
  ended_at: z.string().optional().describe('When it ended'),
};
export type RunView = z.infer<z.ZodObject<typeof runViewShape>>;

export function toRunView(run: BackgroundRun): RunView {
  return {
    run_id: run.runId,
    kind: run.kind,
    state: run.state,
    ...(run.sessionId ? { session_id: run.sessionId } : {}),
    what: run.what,
    ...(run.status ? { status: run.status } : {}),
    ...(run.waiting ? { waiting: run.waiting } : {}),
    ...(run.error ? { error: run.error } : {}),
    cancel_requested: run.cancelRequested,
    created_at: run.createdAt,
    ...(run.endedAt ? { ended_at: run.endedAt } : {}),
  };
}

/** One line a model reads about a run. */
export function runLine(run: BackgroundRun): string {
  const where = run.sessionId ? ` in session ${run.sessionId}` : '';
  const age = run.startedAt && !run.endedAt ? ` for ${formatDuration(Date.now() - Date.parse(run.startedAt))}` : '';
  const state =
    run.state === 'done'
      ? `done (${run.status ?? 'ok'})`
      : run.state === 'failed'
        ? `failed: ${run.error?.code ?? 'ERROR'}: ${run.error?.message ?? ''}`
        : run.state === 'queued'
          ? `queued${run.waiting ? ` (${run.waiting})` : ''}`
          : `running${age}`;
  return `${run.runId} ${run.kind}${where}: ${state}${run.cancelRequested && run.state !== 'done' && run.state !== 'failed' ? ', cancel asked' : ''} — ${run.what.split('\n')[0]?.slice(0, 80) ?? ''}`;
}
