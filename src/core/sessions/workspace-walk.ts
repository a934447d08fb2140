import { SandpitError, toErrorBody } from '../../shared/api/errors';
import { normalizeRelativePath } from '../files/safe-path';
import { listWorkspace, readWorkspaceFile } from './workspace-files';
import type { WorkspaceAgent } from './workspace-files';

/** The most entries one listing returns (the agent's own cap): a folder that full may hold more. */
const LISTING_CAP = 5_000;

export interface WorkspaceWalkCaps {
  maxFiles: number;
  /** All the files' sizes together. */
  maxBytes: number;
  maxFileBytes: number;
  /** Folders (relative to /workspace) not walked at all, and named in `leftOut`: the session's shared folders. */
  leaveOut?: readonly string[];
}

export interface WorkspaceWalk {
  files: number;
  bytes: number;
  /** Entries left out and why they were (never followed or read): links, special files, files and folders the
   * sandbox user cannot read, names no path may have (a newline, a backslash…: shown escaped). */
  skipped: string[];
  /** Folders not walked because the caller left them out (shared folders of the person's computer). */
  leftOut: string[];
}

/** Gets each regular file as it is read (so a large workspace is never held in memory at once). */
export type WorkspaceFileSink = (path: string, content: Buffer) => Promise<void>;

const MAX_SKIPPED_LISTED = 100;

function tooLarge(message: string): SandpitError {
  return new SandpitError('LIMIT_EXCEEDED', message);
}

/** Whether a name the sandbox listed is one a workspace path may have (no control characters, backslashes…). */
function usablePath(path: string): boolean {
  try {
    normalizeRelativePath(path);
    return true;
  } catch {
    return false;
  }
}

/** A listed name as the person sees it: control characters escaped as in JSON (`a\nb`), never raw. */
function shownPath(path: string): string {
  return JSON.stringify(path).slice(1, -1);
}

/** Why the agent refused: its fs-error code. */
function refusedFor(error: unknown): string | undefined {
  return ((error as SandpitError | undefined)?.details as { reason?: string } | undefined)?.reason;
}

/**
 * Every regular file of /workspace, folder by folder, read through the agent as the sandbox user: its
 * listings show links as links and its reads refuse them, so nothing outside the workspace is ever read.
 * Links and special files are left out and named in `skipped`; the caps are checked before each read.
 */
export async function walkWorkspace(
  agent: WorkspaceAgent,
  sink: WorkspaceFileSink,
  caps: WorkspaceWalkCaps,
): Promise<WorkspaceWalk> {
  const folders = [''];
  const skipped: string[] = [];
  const leaveOut = new Set(caps.leaveOut ?? []);
  const leftOut: string[] = [];
  let files = 0;
  let bytes = 0;
  const skip = (path: string): void => {
    if (skipped.length < MAX_SKIPPED_LISTED) skipped.push(shownPath(path));
  };
  // The sink of one file runs while the next is read (order kept; at most two files held at once).
  let sinking: Promise<void> = Promise.resolve();
  try {
    for (let folder = folders.shift(); folder !== undefined; folder = folders.shift()) {
      let entries;
      try {
        entries = await listWorkspace(agent, folder);
      } catch (error) {
        // A folder code made unreadable (chmod 000) is left out like a link: it cannot block the snapshot.
        if (folder !== '' && refusedFor(error) === 'DENIED') {
          skip(folder);
          continue;
        }
        throw error;
      }
      if (entries.length >= LISTING_CAP) {
        throw tooLarge(
          `The folder /workspace/${folder} holds ${LISTING_CAP.toLocaleString('en-US')} entries or more: a snapshot takes folders of fewer entries.`,
        );
      }
      for (const entry of entries) {
        if (!usablePath(entry.path)) {
          skip(entry.path);
          continue;
        }
        if (entry.type === 'directory') {
          if (leaveOut.has(entry.path)) leftOut.push(entry.path);
          else folders.push(entry.path);
          continue;
        }
        if (entry.type !== 'file') {
          skip(entry.path);
          continue;
        }
        if (files + 1 > caps.maxFiles)
          throw tooLarge(
            `The workspace holds more than ${caps.maxFiles.toLocaleString('en-US')} files: a snapshot takes at most that many.`,
          );
        if (entry.size > caps.maxFileBytes) {
          throw tooLarge(
            `/workspace/${entry.path} is ${entry.size} bytes: a snapshot takes files of up to ${caps.maxFileBytes} bytes. Delete or split it, then try again.`,
          );
        }
        if (bytes + entry.size > caps.maxBytes)
          throw tooLarge(
            `The workspace's files add up to more than ${caps.maxBytes} bytes: a snapshot takes at most that much.`,
          );
        let content: Buffer;
        try {
          content = (await readWorkspaceFile(agent, entry.path, Math.min(caps.maxFileBytes, caps.maxBytes - bytes)))
            .content;
        } catch (error) {
          const { code } = toErrorBody(error);
          const reason = refusedFor(error);
          // Unreadable for the sandbox user (chmod 000), or replaced by a link or a special file, or removed,
          // since the listing (code still running in the background): left out and named.
          if (code === 'NOT_FOUND' || (code === 'INVALID_INPUT' && (reason === 'LINK' || reason === 'DENIED' || reason === 'NOT_A_FILE'))) {
            skip(entry.path);
            continue;
          }
          throw error;
        }
        bytes += content.length;
        files += 1;
        await sinking;
        sinking = sink(entry.path, content);
        sinking.catch(() => undefined);
      }
    }
    await sinking;
  } catch (error) {
    // Nothing is left running behind a failure.
    await sinking.catch(() => undefined);
    throw error;
  }
  return { files, bytes, skipped, leftOut };
}
