import { z } from 'zod';
import { executionResultSchema, streamNameSchema } from './execution';
import { commandResultSchema } from './packages';

/**
 * A background run (issue 23): an ordinary run, command or file run that returned its id at once. The
 * person sees and may cancel every one in the panel; a client sees only its own (see docs: ownership).
 */
export const RUN_KINDS = ['code', 'command', 'file'] as const;
export const runKindSchema = z.enum(RUN_KINDS);
export type RunKind = z.infer<typeof runKindSchema>;

/**
 * queued: waiting for its session (a run ahead of it), for a new session to start, or for the person's approval;
 * running: under way; done: ended with a result (its status says how: ok, error, timeout, interrupted …);
 * failed: it could not run (denied, the session was stopped, …), `error` says why.
 */
export const RUN_STATES = ['queued', 'running', 'done', 'failed'] as const;
export const runStateSchema = z.enum(RUN_STATES);
export type RunState = z.infer<typeof runStateSchema>;

export const runIdSchema = z
  .string()
  .regex(/^run-[a-z0-9]{8,40}$/)
  .describe('Id of a background run (from a call with background: true, or runs.list)');

export const backgroundRunSchema = z.object({
  runId: z.string(),
  kind: runKindSchema,
  state: runStateSchema,
  /** The session it runs in, once known (a default session may still be starting). */
  sessionId: z.string().optional(),
  client: z.string().optional().describe('The client that started it'),
  /** What runs: the code, the command or the file's path, cut to a preview. */
  what: z.string(),
  createdAt: z.string(),
  startedAt: z.string().optional(),
  endedAt: z.string().optional(),
  timeoutMs: z.number().int(),
  /** What it waits for while queued, in plain words (its place in the session's queue, the person's approval). */
  waiting: z.string().optional(),
  /** A cancel was asked for (by the client or the person); the run is being stopped. */
  cancelRequested: z.boolean(),
  /** done: the run's status (ok, error, timeout, interrupted, oom, killed; for a command: ok or error by exit code). */
  status: z.string().optional(),
  /** failed: why it could not run. */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** Characters of output so far (the cursor a caller passes as `since` to get what follows). */
  outputChars: z.number().int().nonnegative(),
});
export type BackgroundRun = z.infer<typeof backgroundRunSchema>;

/** A piece of a run's output, in the order it was printed. */
export const runOutputChunkSchema = z.object({ stream: streamNameSchema, text: z.string() });
export type RunOutputChunk = z.infer<typeof runOutputChunkSchema>;

/** What runs.get answers: the run, its output since the caller's cursor, and its full result once it is done. */
export const runAnswerSchema = z.object({
  run: backgroundRunSchema,
  output: z.array(runOutputChunkSchema).describe('Output since the cursor, in the order it was printed'),
  cursor: z.number().int().nonnegative().describe('Pass as `since` next time'),
  skippedChars: z.number().int().nonnegative().describe('Output after `since` that is no longer kept (only the newest part of a long output is)'),
  more: z.boolean().describe('More output is there already than this answer holds'),
  execution: executionResultSchema.optional().describe('The full result of a code or file run, once it is done'),
  command: commandResultSchema.optional().describe('The full result of a command, once it is done'),
});
