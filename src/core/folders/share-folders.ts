import { SandpitError } from '../../shared/api/errors';
import type { FolderMode, SharedFolder } from '../../shared/domain/shared-folder';
import { checkShareableFolder } from './folder-check';
import { assertNoWritableNesting } from './folder-nesting';
import { folderMountPath, folderName } from './folder-placement';
import { pathRules } from './folder-rules';
import type { FolderSharing } from './folder-sharing';

/** Why the sandbox user could not change this folder under its own permissions (undefined: it could), in plain words. */
async function sandboxCannotWrite(hostPath: string, sharing: FolderSharing): Promise<string | undefined> {
  try {
    await checkShareableFolder(hostPath, 'rw', sharing.checkContext());
    return undefined;
  } catch (error) {
    return error instanceof SandpitError && (error.details as { reason?: string } | undefined)?.reason === 'permissions'
      ? `the sandbox's user could not change ${hostPath} under the folder's own permissions, so it is given a copy`
      : `the folder could not be checked for writing (${error instanceof Error ? error.message : String(error)})`;
  }
}

/**
 * Gives each review folder ("Changes need my OK") without one its layer in Sandpit's data folder: an overlay
 * over the folder where the engine can mount one, else a copy; the sandbox mounts it in the folder's place.
 * Called where a session gets its folders (not where an environment's folders are only checked).
 */
export async function prepareReviewLayers(folders: readonly MountedFolder[], sharing: FolderSharing): Promise<MountedFolder[]> {
  const out: MountedFolder[] = [];
  for (const folder of folders) {
    if (folder.mode !== 'review' || folder.layerPath) {
      out.push(folder);
      continue;
    }
    if (!sharing.reviews) throw new SandpitError('DENIED', 'Folders whose changes need your OK are not available with this engine.', { reason: 'no-review' });
    const layer = await sharing.reviews.create(folder.hostPath, await sandboxCannotWrite(folder.hostPath, sharing));
    out.push({ ...folder, layerPath: layer.layerPath, ...(layer.overlayWorkPath ? { overlayWorkPath: layer.overlayWorkPath } : {}) });
  }
  return out;
}

/** A shared folder as a session holds it: what everyone sees, and the group its sandbox user joins for it. */
export interface MountedFolder extends SharedFolder {
  groupId?: number;
  /** A review folder's layer: what the sandbox mounts in its place (src/core/folders/review/). */
  layerPath?: string;
  /** Its overlay's work folder, when the layer is an overlay's upper folder over the person's folder. */
  overlayWorkPath?: string;
}

/** A folder the person asked for (the contract's shareFolderInput, parsed). */
export interface FolderRequest {
  hostPath: string;
  mode: FolderMode;
  mountPath?: string | undefined;
}

/**
 * The folders after adding `requests` to `current`: each checked (after resolving links), named and
 * placed; a folder already shared, a refused one, or one inside a read-write one (or around it), throws
 * with the reason. The one way a folder is
 * accepted, for a session and for an environment.
 */
export async function shareFolders(requests: readonly FolderRequest[], sharing: FolderSharing, current: readonly MountedFolder[] = []): Promise<MountedFolder[]> {
  if (requests.length === 0) return [...current];
  const why = sharing.unavailable();
  if (why) throw new SandpitError('DENIED', why, { reason: 'remote-engine' });
  const check = sharing.checkContext();
  const rules = pathRules(check.platform);
  const next = [...current];
  for (const request of requests) {
    const checked = await checkShareableFolder(request.hostPath, request.mode, check);
    const same = next.find((f) => rules.key(f.hostPath) === rules.key(checked.realPath));
    if (same) throw new SandpitError('CONFLICT', `${checked.realPath} is already shared, at ${same.mountPath}.`, { reason: 'already-shared' });
    const name = folderName(checked.realPath, next.map((f) => f.name));
    const mountPath = folderMountPath(request.mountPath, name, next);
    next.push({ name, hostPath: checked.realPath, mountPath, mode: request.mode, ...(checked.groupId === undefined ? {} : { groupId: checked.groupId }) });
    assertNoWritableNesting(next, rules);
  }
  return next;
}
