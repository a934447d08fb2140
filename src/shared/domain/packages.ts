import { z } from 'zod';

/** A package as a user writes it: `numpy`, `numpy==2.1.0`, `requests[socks]>=2`, `lodash@4`, `@scope/pkg@^1`. Validated per installer. */
export const packageSpecSchema = z.string().min(1).max(200).describe('Package name, optionally with a version');

export const packageOutcomeSchema = z.object({
  package: z.string(),
  ok: z.boolean(),
  version: z.string().optional(),
  error: z.string().optional(),
});
export type PackageOutcome = z.infer<typeof packageOutcomeSchema>;

export const commandResultSchema = z.object({
  sessionId: z.string(),
  exitCode: z.number().int(),
  stdout: z.string(),
  stderr: z.string(),
  timedOut: z.boolean(),
  durationMs: z.number(),
  auditId: z.number().int().optional().describe('Row of this call in the audit log'),
});
export type CommandResult = z.infer<typeof commandResultSchema>;
