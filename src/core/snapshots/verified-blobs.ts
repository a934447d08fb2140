import { createHash, webcrypto } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { lend } from '../util/lent-buffers';
import type { ReusedBuffers } from '../util/reused-buffers';

/** Blobs remembered at most (then forgotten all at once: each is checked again on its next read). */
const MAX_REMEMBERED = 200_000;

/** A file's identity and last change: its inode, size, and modification and change times in nanoseconds. */
function statKey(st: BigIntStats): string {
  return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/** The file's `size` bytes (fewer if it shrank meanwhile: the hash then says so) in a buffer of `buffers`, lent. */
async function readLent(handle: FileHandle, size: number, buffers: ReusedBuffers): Promise<Buffer> {
  const buffer = buffers.take(size);
  let at = 0;
  while (at < size) {
    const { bytesRead } = await handle.read(buffer, at, size - at, at);
    if (bytesRead === 0) break;
    at += bytesRead;
  }
  return lend(buffer.subarray(0, at), () => buffers.give(buffer));
}

export function sha256Of(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/** The same, computed on a thread of the pool (Web Crypto's digest): the main thread goes on meanwhile. */
export async function sha256OfAsync(content: Buffer): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', content)).toString('hex');
}

/**
 * Blobs of the snapshot store whose bytes are known to match their sha256, by their file's inode, size, mtime and
 * ctime when that was known (the store wrote it, or a read hashed it). A read of a blob whose file is unchanged since
 * skips hashing it again (for a 100 MiB restore, ≈ 0.1 s of the core's CPU beside the copy); any write to the file,
 * a file put in its place or a clock set back to forge its mtime changes its ctime, and then it is hashed again.
 * (Someone who can write the data folder can also add a blob of their own and name it in a manifest: the hash
 * guards against a damaged or edited blob, which this keeps catching.)
 */
export class VerifiedBlobs {
  private readonly known = new Map<string, string>();

  /** The blob at `path` was just written by the store with these bytes (its sha256 computed from them). */
  async wrote(sha256: string, path: string): Promise<void> {
    this.remember(sha256, statKey(await stat(path, { bigint: true })));
  }

  forget(sha256: string): void {
    this.known.delete(sha256);
  }

  /**
   * The blob's bytes, read from `path` and checked against `sha256` unless its file is unchanged since its bytes were
   * last known to match; undefined when they do not match. Errors of the file system are thrown as they are. With
   * `into`, the bytes are read into one of its buffers, lent (lent-buffers.ts) to be given back once they are sent.
   */
  async read(sha256: string, path: string, into?: ReusedBuffers): Promise<Buffer | undefined> {
    const handle = await open(path, 'r');
    try {
      const first = await handle.stat({ bigint: true });
      const before = statKey(first);
      const content = into ? await readLent(handle, Number(first.size), into) : await handle.readFile();
      const after = statKey(await handle.stat({ bigint: true }));
      if (before === after && this.known.get(sha256) === after) return content;
      if (sha256Of(content) !== sha256) {
        this.known.delete(sha256);
        return undefined;
      }
      if (before === after) this.remember(sha256, after);
      return content;
    } finally {
      await handle.close();
    }
  }

  private remember(sha256: string, key: string): void {
    if (this.known.size >= MAX_REMEMBERED) this.known.clear();
    this.known.set(sha256, key);
  }
}
