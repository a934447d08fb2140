import { z } from 'zod';

/**
 * How a shared folder is mounted: read-only (the default), read-write, or review ("Changes need my OK": the
 * sandbox may change it, but every change lands in the session's own layer until the person applies it).
 */
export const FOLDER_MODES = ['ro', 'rw', 'review'] as const;
export const folderModeSchema = z
  .enum(FOLDER_MODES)
  .describe('"ro" = read-only (the default), "rw" = the session may change its files, "review" = the session may change them but each change waits for the person\'s OK in the panel');
export type FolderMode = z.infer<typeof folderModeSchema>;

/** What each mode is called on screen (the same words everywhere). */
export const FOLDER_MODE_WORDS: Record<FolderMode, string> = {
  ro: 'read-only',
  rw: 'read and write',
  review: 'changes need my OK',
};

/** Where shared folders appear in a sandbox unless the person picks another place under /workspace. */
export const SHARED_FOLDERS_DIR = '/workspace/shared';

/** A folder of the person's computer that a session has (what the panel, list_sessions and the audit log show). */
export const sharedFolderSchema = z.object({
  name: z.string().describe('Short name (the folder\'s own name, made unique in the session)'),
  hostPath: z.string().describe('The folder on this computer (its real path, links resolved)'),
  mountPath: z.string().describe('Where it appears inside the sandbox (under /workspace)'),
  mode: folderModeSchema,
});
export type SharedFolder = z.infer<typeof sharedFolderSchema>;

/** A folder the person asks to share: a path on this computer, how, and (optionally) where it appears. */
export const shareFolderInputSchema = z.object({
  hostPath: z.string().trim().min(1).max(4096).describe('The folder on this computer (absolute, or starting with ~ for the home folder)'),
  mode: folderModeSchema.default('ro'),
  mountPath: z
    .string()
    .trim()
    .max(1024)
    .optional()
    .describe(`Where it appears in the sandbox, under /workspace (default: ${SHARED_FOLDERS_DIR}/<folder name>)`),
});
export type ShareFolderInput = z.input<typeof shareFolderInputSchema>;

/**
 * Folders never shared, nor anything inside or containing them (Settings → Shared folders); `~` is the
 * home folder. System folders, the home folder itself, Sandpit's data folder and the Docker socket's
 * folders are refused on top of these, whatever the list says.
 */
export const DEFAULT_PROTECTED_FOLDERS: readonly string[] = [
  '~/.ssh',
  '~/.aws',
  '~/.gnupg',
  '~/.config',
  '~/.docker',
  '~/.kube',
  '~/.azure',
  '~/.password-store',
  '~/Library/Keychains',
];
