import { z } from 'zod';

/**
 * How strongly a sandbox is kept from the computer: `standard` is the hardened container (runc, sharing
 * the host's kernel); `strong` puts gVisor's user-space kernel between the code and the host's kernel.
 */
export const ISOLATION_LEVELS = ['standard', 'strong'] as const;
export const isolationSchema = z
  .enum(ISOLATION_LEVELS)
  .describe('"standard" = hardened container (runc); "strong" = gVisor (runsc), a kernel of its own between the code and the computer');
export type Isolation = z.infer<typeof isolationSchema>;

export const ISOLATION_WORDS: Record<Isolation, string> = {
  standard: 'Standard',
  strong: 'Strong (gVisor)',
};
