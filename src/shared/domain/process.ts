import { z } from 'zod';

/** The most output kept per process (the oldest is dropped first, and the output says so). */
export const PROCESS_OUTPUT_RING_BYTES = 1024 * 1024;
/** The most output one process_output call returns (ask again from `next` for the rest). */
export const PROCESS_OUTPUT_MAX_BYTES = 256 * 1024;
/** How many processes may run at once in one session (previews' forwarders not counted). */
export const MAX_PROCESSES_PER_SESSION = 16;

export const processIdSchema = z
  .string()
  .regex(/^proc-[a-z0-9]{6,40}$/)
  .describe('Process id (from start_process)');

/**
 * running: still going · exited: ended by itself (exitCode says how) · stopped: stopped by a person, an
 * assistant, or its session (stoppedBy says which, in words).
 */
export const processStateSchema = z.enum(['running', 'exited', 'stopped']);
export type ProcessState = z.infer<typeof processStateSchema>;

export const processInfoSchema = z.object({
  id: processIdSchema,
  sessionId: z.string(),
  name: z.string().describe('What the process is called (its name, or the start of its command)'),
  command: z.string().describe('The shell command it runs (sh -c)'),
  cwd: z.string().describe('The folder it runs in'),
  state: processStateSchema,
  startedAt: z.string(),
  endedAt: z.string().optional(),
  exitCode: z.number().int().optional().describe('Its exit status once it ended (128 + n when signal n ended it)'),
  stoppedBy: z.string().optional().describe('Why it was stopped, in plain words'),
  outputBytes: z
    .number()
    .int()
    .nonnegative()
    .describe('How many bytes it has written in all (the cursor of its newest output)'),
  lastLines: z.array(z.string()).describe('Its last few lines of output'),
});
export type ProcessInfo = z.infer<typeof processInfoSchema>;

export const processOutputSchema = z.object({
  process: processInfoSchema,
  text: z.string().describe('Output (stdout and stderr together) from `since` on'),
  since: z.number().int().nonnegative().describe('The cursor this text starts at'),
  next: z.number().int().nonnegative().describe('The cursor to ask from next time'),
  droppedBytes: z
    .number()
    .int()
    .nonnegative()
    .describe(
      'Bytes between the cursor asked for and the oldest output still kept (dropped: only the last 1 MiB is kept)',
    ),
  more: z.boolean().describe('More output is waiting after `next` (this answer was cut at its size limit)'),
});
export type ProcessOutput = z.infer<typeof processOutputSchema>;

/** start_process's input but its session (the contract adds its own session id field). */
export const startProcessInputSchema = z.object({
  command: z
    .string()
    .min(1)
    .max(64 * 1024)
    .describe('Shell command (sh -c) that keeps running, e.g. "python3 -m http.server 8000"'),
  name: z.string().min(1).max(120).optional().describe('What to call it in lists (default: its command)'),
  cwd: z.string().min(1).max(4096).optional().describe('Folder in /workspace to run it in (default: /workspace)'),
});

export const processOutputInputSchema = z.object({
  processId: processIdSchema,
  since: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('Cursor from an earlier answer (`next`); default: the oldest output kept'),
  waitSeconds: z
    .number()
    .min(0)
    .max(60)
    .default(0)
    .describe('When nothing new is there yet, wait up to this long for output (or for the end)'),
});
