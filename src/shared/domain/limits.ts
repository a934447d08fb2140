import { z } from 'zod';

/** Resource limits of one session container. Every field has a safe default. */
export const limitsSchema = z.object({
  memoryMb: z.number().int().min(32).max(65_536).describe('Memory limit in MiB (swap is not allowed beyond it)'),
  cpus: z.number().min(0.1).max(64).describe('CPU limit in cores'),
  pids: z.number().int().min(16).max(4_096).describe('Maximum number of processes and threads'),
  workspaceMb: z.number().int().min(8).max(65_536).describe('Size of /workspace in MiB'),
  tmpMb: z.number().int().min(8).max(8_192).describe('Size of /tmp in MiB'),
  outputBytes: z.number().int().min(1_024).max(64 * 1024 * 1024).describe('Output kept per stream per run, in bytes'),
  timeoutMs: z.number().int().min(100).max(24 * 3_600_000).describe('Default timeout of one run, in milliseconds'),
});
export type Limits = z.infer<typeof limitsSchema>;

export const DEFAULT_LIMITS: Limits = {
  memoryMb: 512,
  cpus: 1,
  pids: 256,
  workspaceMb: 512,
  tmpMb: 64,
  outputBytes: 1024 * 1024,
  timeoutMs: 60_000,
};

export const partialLimitsSchema = limitsSchema.partial();
export type PartialLimits = z.infer<typeof partialLimitsSchema>;

export function resolveLimits(overrides: PartialLimits | undefined, base: Limits = DEFAULT_LIMITS): Limits {
  return limitsSchema.parse({ ...base, ...(overrides ?? {}) });
}
