import type { Stats } from 'node:fs';
import { hashFile } from './review-files';
import type { HashedFile } from './review-files';

const MAX_ENTRIES = 50_000;

function key(info: Stats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

/**
 * Hashes of the session's changed files, kept while the file is the same (device, inode, size, mtime and
 * ctime: code in a sandbox cannot set ctime back), so a file is read once however often the changes are
 * listed. A hash is kept only when the file read is the one stat'ed (nothing changed it during the read).
 */
export class HashCache {
  private readonly known = new Map<string, { key: string; hashed: Omit<HashedFile, 'info'> }>();

  /** The file's hash and text flag; `info` is its lstat from the listing (the file opened must be that one). */
  async hash(path: string, info: Stats): Promise<Omit<HashedFile, 'info'>> {
    const k = key(info);
    const cached = this.known.get(path);
    if (cached?.key === k) return cached.hashed;
    const { info: opened, ...hashed } = await hashFile(path, info);
    if (key(opened) === k) {
      if (this.known.size >= MAX_ENTRIES) this.known.delete(this.known.keys().next().value!);
      this.known.set(path, { key: k, hashed });
    }
    return hashed;
  }

  /** Forgets every file under `dir` (its layer was removed). */
  forgetUnder(dir: string): void {
    for (const path of this.known.keys()) if (path.startsWith(`${dir}/`)) this.known.delete(path);
  }
}
