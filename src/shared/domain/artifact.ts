import { z } from 'zod';

/** A file kept in the host artifact store, addressed by the sha256 of its content. */
export const artifactSchema = z.object({
  sha256: z.string().regex(/^[a-f0-9]{64}$/),
  path: z.string().describe('Path relative to /workspace when it was captured'),
  mime: z.string(),
  size: z.number().int().nonnegative(),
  sessionId: z.string(),
  /** The session's name when the run made it (kept so an ended session's files still say whose they are). */
  sessionName: z.string().optional(),
  executionId: z.string().optional(),
  createdAt: z.string(),
});
export type Artifact = z.infer<typeof artifactSchema>;

export const fileEntrySchema = z.object({
  path: z.string(),
  type: z.enum(['file', 'directory', 'symlink', 'other']),
  size: z.number().int().nonnegative(),
  modifiedAt: z.string().optional(),
});
export type FileEntry = z.infer<typeof fileEntrySchema>;
