import { randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { open, rename, rm } from 'node:fs/promises';

/**
 * Writes `content` to `path` so that readers see the old file or the new one, never half of one:
 * a private (0600) temp file (`temp`, by default beside `path`), flushed to disk, then renamed over.
 * On failure the temp file is removed and the write's error thrown.
 */
export async function writeFileAtomic(
  path: string,
  content: string | Buffer,
  temp = `${path}.${randomBytes(6).toString('hex')}.tmp`,
): Promise<void> {
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** Flushes a folder's entries (a rename) to disk where the platform allows it. */
export async function syncFolder(path: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    await handle.sync();
  } catch {
    // Not supported everywhere (Windows); the rename itself is still atomic.
  } finally {
    await handle?.close();
  }
}
