import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { SandboxFolder } from '../sandbox/sandbox-backend';
import { checkShareableFolder } from './folder-check';
import { assertNoWritableNesting } from './folder-nesting';
import { pathRules } from './folder-rules';
import type { FolderSharing } from './folder-sharing';

/**
 * The folders of a sandbox checked again, right before a container that mounts them is made or started (a
 * bind mount's source is followed at every start): each must still pass every check of a folder being
 * shared — against the protected list as it is now — and still be where it was when it was shared, with no
 * link anywhere in its path. A folder that is now a link, or any other refusal, starts nothing. The groups
 * come from the check, never from a record.
 */
export async function recheckFolders(folders: readonly SandboxFolder[], sharing: FolderSharing): Promise<SandboxFolder[]> {
  if (folders.length === 0) return [];
  const why = sharing.unavailable();
  if (why) throw new SandpitError('DENIED', why, { reason: 'remote-engine' });
  const context = sharing.checkContext();
  const rules = pathRules(context.platform);
  const checked: SandboxFolder[] = [];
  for (const folder of folders) {
    // a review folder's own folder is only read (the sandbox writes to its layer)
    const mode = folder.layerPath ? 'ro' : folder.readOnly ? 'ro' : 'rw';
    if (!rules.api.isAbsolute(folder.hostPath)) {
      throw new SandpitError('DENIED', `The shared folder at ${folder.mountPath} names "${folder.hostPath}", which is not a full path: it is not mounted.`, { reason: 'relative' });
    }
    let real: Awaited<ReturnType<typeof checkShareableFolder>>;
    try {
      real = await checkShareableFolder(folder.hostPath, mode, context);
    } catch (error) {
      const body = toErrorBody(error);
      throw new SandpitError(body.code, `The shared folder ${folder.hostPath} (at ${folder.mountPath}) is not mounted: ${body.message}`, body.details);
    }
    if (rules.key(real.realPath) !== rules.key(rules.api.resolve(folder.hostPath))) {
      throw new SandpitError(
        'DENIED',
        `The shared folder ${folder.hostPath} (at ${folder.mountPath}) is not mounted: it is now a link to ${real.realPath}, and a shared folder is mounted only as it was checked when it was shared. Remove the folder from the session and share the folder you mean.`,
        { reason: 'moved', hostPath: folder.hostPath, now: real.realPath },
      );
    }
    if (folder.layerPath) {
      if (!sharing.reviews) throw new SandpitError('DENIED', `The shared folder ${folder.hostPath} (at ${folder.mountPath}) needs your OK for its changes, which this engine does not offer: it is not mounted.`, { reason: 'no-review' });
      await sharing.reviews.checkMount(folder.layerPath, folder.overlayWorkPath);
    }
    const { groupId: _recorded, ...rest } = folder;
    checked.push({ ...rest, hostPath: real.realPath, ...(real.groupId === undefined ? {} : { groupId: real.groupId }) });
  }
  assertNoWritableNesting(checked.map((f) => ({ hostPath: f.hostPath, mode: f.layerPath ? 'review' : f.readOnly ? 'ro' : 'rw' })), rules);
  return checked;
}
