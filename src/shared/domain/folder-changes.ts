import { z } from 'zod';

/** What happened to one file of a review folder ("Changes need my OK"), compared with the person's folder as it was shared. */
export const CHANGE_KINDS = ['added', 'changed', 'deleted', 'renamed'] as const;
export const changeKindSchema = z.enum(CHANGE_KINDS);
export type ChangeKind = z.infer<typeof changeKindSchema>;

/** Why a change can never be applied (it is shown, with this reason, and only Discard is offered). */
export const REFUSAL_REASONS = ['link', 'special-file', 'outside-folder', 'too-large'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** One side of a change: the file as the person has it (before) or as the session left it (after). */
export const fileSideSchema = z.object({
  size: z.number().int().nonnegative().describe('Bytes'),
  sha256: z.string().describe('SHA-256 of the content (hex)'),
  mode: z.number().int().describe('Permission bits (e.g. 0o644 = 420)'),
});
export type FileSide = z.infer<typeof fileSideSchema>;

export const folderChangeSchema = z.object({
  path: z.string().describe('The file, relative to the shared folder (forward slashes)'),
  kind: changeKindSchema,
  from: z.string().optional().describe('For a rename: the path it had before'),
  before: fileSideSchema
    .optional()
    .describe("The file in the person's folder as it was shared (absent for an added file)"),
  after: fileSideSchema.optional().describe('The file as the session left it (absent for a deleted file)'),
  text: z.boolean().describe('Both sides are text (UTF-8): a line diff is available'),
  image: z.string().optional().describe('The image type (image/png …) when the file is a picture'),
  conflict: z
    .string()
    .optional()
    .describe('Set when the person changed this file on their computer after sharing it: nothing is overwritten'),
  refused: z
    .object({ reason: z.enum(REFUSAL_REASONS), message: z.string() })
    .optional()
    .describe('Why this change can never be applied'),
  diff: z.string().optional().describe('A short unified diff (text files; bounded)'),
  diffTruncated: z.boolean().optional(),
});
export type FolderChange = z.infer<typeof folderChangeSchema>;

export const folderChangesSchema = z.object({
  sessionId: z.string(),
  name: z.string().describe("The folder's short name in the session"),
  hostPath: z.string().describe("The person's folder"),
  mountPath: z.string().describe('Where the session sees it'),
  backend: z
    .enum(['copy', 'overlay'])
    .describe("How the session's layer is kept: a copy of the folder, or an overlay on top of it"),
  backendReason: z.string().optional().describe('Why it is a copy where an overlay was not possible (plain words)'),
  changes: z.array(folderChangeSchema),
});
export type FolderChanges = z.infer<typeof folderChangesSchema>;

/** One text line of a side-by-side diff (left = the person's file, right = the session's). */
export const diffRowSchema = z.object({
  kind: z.enum(['same', 'removed', 'added', 'changed']),
  left: z.string().optional(),
  right: z.string().optional(),
  leftLine: z.number().int().optional(),
  rightLine: z.number().int().optional(),
});
export type DiffRow = z.infer<typeof diffRowSchema>;

/** What an apply or discard did, per file (also what the audit log shows). */
export const changeOutcomeSchema = z.object({
  path: z.string(),
  done: z.boolean(),
  message: z.string().describe('What happened, in plain words'),
  beforeSha256: z.string().optional(),
  afterSha256: z.string().optional(),
  trashed: z.string().optional().describe('Where a deleted file went (the system trash)'),
  needsConfirmation: z
    .boolean()
    .optional()
    .describe('A deleted file no trash can take: applied again with confirmDelete, it is deleted for good'),
});
export type ChangeOutcome = z.infer<typeof changeOutcomeSchema>;

/** Which changes of one review folder an apply or discard is for: the paths, or all of them. */
export const changeSelectionSchema = z.object({
  sessionId: z.string().min(1).max(200),
  mountPath: z.string().min(1).max(1024).describe('The review folder, by where the session sees it'),
  paths: z
    .array(z.string().min(1).max(4096))
    .max(100_000)
    .optional()
    .describe('The files (relative to the folder); absent: all of them'),
});

/** What changes.diff answers for one file: the change, and its diff side by side (text) or both pictures (image). */
export const changeDiffSchema = z.object({
  change: folderChangeSchema,
  rows: z.array(diffRowSchema).optional().describe('Side by side, for a text file'),
  whitespaceOnly: z.boolean().describe('Only spaces, tabs or line ends differ'),
  beforeImage: z.string().optional().describe('The person\'s picture (base64), for an image'),
  afterImage: z.string().optional().describe('The session\'s picture (base64), for an image'),
});
