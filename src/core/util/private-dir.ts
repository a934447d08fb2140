import { lstat, mkdir } from 'node:fs/promises';
import { SandpitError } from '../../shared/api/errors';

/**
 * Makes (or accepts) a directory that only this user controls: a real directory, not a symlink, owned
 * by us, writable by nobody else. A predictable path in a shared folder such as /tmp could otherwise
 * be made or swapped by another local user before we use it.
 */
export async function ensurePrivateDir(path: string, mode = 0o711): Promise<void> {
  await mkdir(path, { recursive: true, mode });
  const st = await lstat(path);
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (!st.isDirectory() || st.isSymbolicLink() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) {
    throw new SandpitError(
      'CONFLICT',
      `The folder ${path} is not private to this user (another user made it, it is a link, or others may write in it). Remove it, or set another folder.`,
    );
  }
}
