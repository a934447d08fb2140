import { z } from 'zod';
import type { ProcessInfo } from '../../../shared/domain/process';
import { processIdSchema } from '../../../shared/domain/process';

/** How a process shows in tool results (snake_case, like every tool's output). */
export const processFields = {
  process_id: processIdSchema,
  session_id: z.string().describe('The session it runs in'),
  name: z.string().describe('What it is called'),
  command: z.string().describe('Its shell command'),
  state: z.enum(['running', 'exited', 'stopped']).describe('running, exited (ended by itself) or stopped'),
  started_at: z.string().describe('When it started (ISO 8601)'),
  exit_code: z.number().int().optional().describe('Its exit status, once it ended'),
  stopped_by: z.string().optional().describe('Why it was stopped'),
  output_bytes: z.number().int().describe('Bytes of output so far (the cursor of its newest output)'),
};

export const processObject = z.object(processFields);

export function processStructured(p: ProcessInfo): z.infer<typeof processObject> {
  return {
    process_id: p.id,
    session_id: p.sessionId,
    name: p.name,
    command: p.command,
    state: p.state,
    started_at: p.startedAt,
    ...(p.exitCode === undefined ? {} : { exit_code: p.exitCode }),
    ...(p.stoppedBy === undefined ? {} : { stopped_by: p.stoppedBy }),
    output_bytes: p.outputBytes,
  };
}

/** One line a person (or a model) reads about a process. */
export function processLine(p: ProcessInfo): string {
  const state =
    p.state === 'running'
      ? 'running'
      : p.state === 'exited'
        ? `exited with code ${p.exitCode ?? 'unknown'}`
        : `stopped (${p.stoppedBy ?? 'stopped'})`;
  return `${p.id} "${p.name}" in session ${p.sessionId}: ${state}`;
}
