import { posix } from 'node:path';
import { SandpitError } from '../../shared/api/errors';
import { SHARED_FOLDERS_DIR } from '../../shared/domain/shared-folder';
import type { SharedFolder } from '../../shared/domain/shared-folder';
import { WORKSPACE_DIR } from '../sandbox/sandbox-paths';

const MAX_NAME = 64;

/** A name for the folder from its own name: letters, digits, `.`, `_`, `-` only, unique among `taken`. */
export function folderName(hostPath: string, taken: readonly string[]): string {
  const base = hostPath.split(/[\\/]/).filter(Boolean).pop() ?? '';
  const cleaned = base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, MAX_NAME) || 'folder';
  if (!taken.includes(cleaned)) return cleaned;
  for (let n = 2; ; n++) {
    const candidate = `${cleaned.slice(0, MAX_NAME - 4)}-${n}`;
    if (!taken.includes(candidate)) return candidate;
  }
}

/**
 * Where a folder appears in the sandbox: `/workspace/shared/<name>`, or the place the person chose, which
 * must be inside /workspace (not /workspace itself) and neither inside nor around another shared folder.
 */
export function folderMountPath(chosen: string | undefined, name: string, others: readonly SharedFolder[]): string {
  const wanted = chosen === undefined || chosen === '' ? `${SHARED_FOLDERS_DIR}/${name}` : chosen.startsWith('/') ? chosen : `${WORKSPACE_DIR}/${chosen}`;
  if (/[\p{Cc}:,\\]/u.test(wanted)) throw new SandpitError('INVALID_INPUT', `"${wanted}" cannot be a place for a folder: it holds a control character, ":", "," or "\\".`, { reason: 'mount-path' });
  const normal = posix.normalize(wanted).replace(/\/+$/, '');
  if (!normal.startsWith(`${WORKSPACE_DIR}/`) || normal.split('/').includes('..')) {
    throw new SandpitError('INVALID_INPUT', `A folder appears inside ${WORKSPACE_DIR}: "${wanted}" is not (try ${SHARED_FOLDERS_DIR}/${name}).`, { reason: 'mount-path' });
  }
  for (const other of others) {
    const a = `${normal}/`;
    const b = `${other.mountPath}/`;
    if (a.startsWith(b) || b.startsWith(a)) {
      throw new SandpitError('CONFLICT', `${normal} would ${a === b ? 'be the same place as' : a.startsWith(b) ? 'be inside' : 'hold'} the shared folder at ${other.mountPath}: pick another place.`, { reason: 'mount-path' });
    }
  }
  return normal;
}
