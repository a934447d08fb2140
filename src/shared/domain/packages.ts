import { z } from 'zod';

/** A package as a user writes it: `numpy`, `numpy==2.1.0`, `requests[socks]>=2`, `lodash@4`, `@scope/pkg@^1`. Validated per installer. */
export const packageSpecSchema = z.string().min(1).max(200).describe('Package name, optionally with a version');

/** Why an install failed, in plain words: its cause, the packages it hit, what to do. */
export const INSTALL_CAUSES = ['unreachable', 'not-found', 'conflict', 'build-failed', 'disk', 'timeout', 'unknown'] as const;
export const installDiagnosisSchema = z.object({
  cause: z.enum(INSTALL_CAUSES).describe('unreachable: the index could not be reached; not-found: no such package or version; conflict: versions do not fit; build-failed: compiling failed; disk; timeout; unknown'),
  summary: z.string().describe('What happened, for a person'),
  affected: z.array(z.string()).describe('The packages it concerns'),
  fixes: z.array(z.string()).describe('What to do, most likely first'),
});
export type InstallDiagnosis = z.infer<typeof installDiagnosisSchema>;

export const packageOutcomeSchema = z.object({
  package: z.string(),
  ok: z.boolean(),
  version: z.string().optional(),
  error: z.string().optional().describe("Why it failed, in plain words"),
  /** The installer's own last lines, for those who want them. */
  detail: z.string().optional(),
  diagnosis: installDiagnosisSchema.optional(),
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
