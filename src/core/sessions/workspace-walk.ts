import { SandpitError, toErrorBody } from '../../shared/api/errors';
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
  /** Entries left out: links (never followed) and special files. */
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
    if (skipped.length < MAX_SKIPPED_LISTED) skipped.push(path);
  };
  // The sink of one file runs while the next is read (order kept; at most two files held at once).
  let sinking: Promise<void> = Promise.resolve();
  try {
    for (let folder = folders.shift(); folder !== undefined; folder = folders.shift()) {
      const entries = await listWorkspace(agent, folder);
      if (entries.length >= LISTING_CAP) {
        throw tooLarge(
          `The folder /workspace/${folder} holds ${LISTING_CAP.toLocaleString('en-US')} entries or more: a snapshot takes folders of fewer entries.`,
        );
      }
      for (const entry of entries) {
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
          // Replaced by a link, or removed, since the listing (code still running in the background).
          if (
            code === 'NOT_FOUND' ||
            (code === 'INVALID_INPUT' &&
              ((error as SandpitError).details as { reason?: string } | undefined)?.reason === 'LINK')
          ) {
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
