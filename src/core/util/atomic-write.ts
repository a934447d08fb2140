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

const SPARSE_BLOCK = 64 * 1024;
const ZERO_BLOCK = Buffer.alloc(SPARSE_BLOCK);

/** Bytes of `content` outside its all-zero 64 KiB blocks: about what `writeSparseFileAtomic` puts on disk. */
export function denseBytes(content: Buffer): number {
  let dense = 0;
  for (let at = 0; at < content.length; at += SPARSE_BLOCK) {
    const block = content.subarray(at, at + SPARSE_BLOCK);
    if (!block.equals(ZERO_BLOCK.subarray(0, block.length))) dense += block.length;
  }
  return dense;
}

/**
 * Writes `content` to a new private (0600) file `temp`, leaving all-zero 64 KiB blocks as holes (the file is sparse
 * where the file system allows it), so a sparse file read as zeros takes no more disk than it did in the sandbox.
 * Not flushed: `syncAndRename` makes it durable and puts it in place (many such files can be flushed together).
 * Returns the disk space the file takes (its allocated blocks). On failure the file is removed.
 */
export async function writeSparseFile(temp: string, content: Buffer): Promise<number> {
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      // each run of blocks that are not all zeros in one write; holes between them
      const writeRun = async (from: number, to: number): Promise<void> => {
        const dense = content.subarray(from, to);
        for (let off = 0; off < dense.length; ) off += (await handle.write(dense, off, dense.length - off, from + off)).bytesWritten;
      };
      let run = -1;
      for (let at = 0; at < content.length; at += SPARSE_BLOCK) {
        const block = content.subarray(at, at + SPARSE_BLOCK);
        const hole = block.equals(ZERO_BLOCK.subarray(0, block.length));
        if (!hole && run < 0) run = at;
        else if (hole && run >= 0) {
          await writeRun(run, at);
          run = -1;
        }
      }
      if (run >= 0) await writeRun(run, content.length);
      // A hole at the end is made by the length alone (nothing written there).
      else if (content.length > 0) await handle.truncate(content.length);
      return (await handle.stat()).blocks * 512;
    } finally {
      await handle.close();
    }
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** Flushes the file at `path` (its contents and size) to disk. */
export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes the file `temp` to disk, then renames it to `path` (readers see the whole file or none). */
export async function syncAndRename(temp: string, path: string): Promise<void> {
  await syncFile(temp);
  await rename(temp, path);
}

/** `writeFileAtomic` for content that may be mostly zeros (see writeSparseFile); returns the disk space the file takes. */
export async function writeSparseFileAtomic(path: string, content: Buffer, temp = `${path}.${randomBytes(6).toString('hex')}.tmp`): Promise<number> {
  const allocated = await writeSparseFile(temp, content);
  try {
    await syncAndRename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  return allocated;
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
