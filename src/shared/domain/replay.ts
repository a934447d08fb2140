import { z } from 'zod';
import { auditFolderSchema, auditIdSchema, auditedMethodSchema } from './audit';

export const diffLineSchema = z.object({ op: z.enum(['same', 'removed', 'added']), text: z.string() });

/** The parts of a run a replay compares with the original. */
export const REPLAY_PARTS = ['status', 'stdout', 'stderr', 'result', 'error'] as const;

/**
 * How one run of a replay went: waiting, running, `matched` (status and every output the same as the original's),
 * `differs` (with a line diff per part that changed), `failed` (the replay's call did not run: refused, the
 * session broke …) or `skipped` (the original never ran either: it was denied or failed before it started).
 */
export const replayOutcomeSchema = z.enum(['pending', 'running', 'matched', 'differs', 'failed', 'skipped']);
export type ReplayOutcome = z.infer<typeof replayOutcomeSchema>;

export const replayRunSchema = z.object({
  originalId: auditIdSchema.describe('The audit row of the original run'),
  method: auditedMethodSchema,
  code: z.string().describe('The beginning of the code, command or package list'),
  outcome: replayOutcomeSchema,
  replayId: auditIdSchema.optional().describe('The audit row of the replayed run (its replay_of is originalId)'),
  note: z.string().optional().describe('Why it failed or was skipped, in plain words'),
  diffs: z.array(z.object({ part: z.enum(REPLAY_PARTS), lines: z.array(diffLineSchema) })).describe('One per part that differs'),
});
export type ReplayRun = z.infer<typeof replayRunSchema>;

export const replayViewSchema = z.object({
  id: z.string(),
  originalSessionId: z.string(),
  replaySessionId: z.string().optional().describe('The fresh session the runs were repeated in'),
  state: z.enum(['starting', 'running', 'done', 'failed']),
  message: z.string().optional().describe('What went wrong, or how the sandbox differs from the recorded one'),
  environment: z.string().optional(),
  recordedImage: z.string().optional(),
  image: z.string().optional().describe('The image the replay ran on'),
  missingFolders: z
    .array(auditFolderSchema)
    .optional()
    .describe("Folders of this computer the original session had that the replay's session does not (runs that read them fail)"),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  runs: z.array(replayRunSchema),
});
export type ReplayView = z.infer<typeof replayViewSchema>;
