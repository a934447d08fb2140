import type { MountedFolder } from '../folders/share-folders';
import type { Sandbox } from '../sandbox/sandbox-backend';
import type { RecordedRuns } from './run-history';
import type { SessionContents } from './session-types';
import { tarWorkspace, untarWorkspace } from './workspace-tar';
import type { WorkspaceExec, WorkspaceFileSink, WorkspaceWalkCaps } from './workspace-tar';

/** A file of a snapshot to write back: its path in /workspace, its size, and its bytes when asked for. */
export interface RestoreFile {
  path: string;
  size: number;
  load(): Promise<Buffer>;
}

/**
 * What a snapshot takes of a sandbox (run inside the session's job): its workspace files to `sink` (read through
 * `bulk`: the agent's pipe or the engine's exec), its package archive, its runs.
 */
export async function captureSessionContents(
  sandbox: Sandbox,
  bulk: WorkspaceExec,
  folders: readonly MountedFolder[],
  packageNames: readonly string[],
  history: () => RecordedRuns,
  sink: WorkspaceFileSink,
  caps: WorkspaceWalkCaps & { maxPackageBytes: number },
  /** What else the snapshot takes while nothing queued runs (review folders' pending changes). */
  alsoInJob?: () => Promise<void>,
): Promise<SessionContents> {
  // Shared folders are the person's files, not the session's: a snapshot never copies them.
  const sharedFolders = folders.map((f) => f.mountPath.replace(/^\/workspace\/?/, ''));
  // The package store is read by the engine while the workspace streams through the agent: the two reads share
  // nothing, and a snapshot waits for the slower one only.
  const [walked, exported] = await Promise.allSettled([
    tarWorkspace(bulk, sink, { ...caps, leaveOut: sharedFolders }),
    sandbox.exportPackages(caps.maxPackageBytes),
  ]);
  if (walked.status === 'rejected') throw walked.reason;
  if (exported.status === 'rejected') throw exported.reason;
  const walk = walked.value;
  const packages = exported.value;
  const recorded = history();
  await alsoInJob?.();
  return { ...walk, ...(packages ? { packages } : {}), packageNames: [...packageNames], history: recorded.runs, historyComplete: recorded.complete };
}

/**
 * Puts a snapshot's packages, then its files (one tar stream through `bulk`), into a sandbox (run inside the session's
 * job). The files may come one by one as a snapshot takes them (a fork).
 */
export async function restoreSessionContents(sandbox: Sandbox, bulk: WorkspaceExec, files: readonly RestoreFile[] | AsyncIterable<RestoreFile>, packagesTar: Buffer | undefined, caps: { maxFileBytes: number; maxBytes: number }): Promise<void> {
  if (packagesTar) await sandbox.importPackages(packagesTar);
  await untarWorkspace(bulk, files, caps);
}
