import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { join } from 'node:path';

/** An entry of a walked tree: its path (forward slashes, relative to the root) and its lstat. */
export interface TreeEntry {
  rel: string;
  info: Stats;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Entries handled between two turns of the event loop (a few milliseconds of work at most). */
const ENTRIES_PER_TURN = 500;
/** Linux names an open folder `/proc/self/fd/<fd>`: a name inside it is found from that folder, never from a path again. */
const ANCHORED = process.platform === 'linux';

/**
 * Every entry below `root`, links never followed, folders too (`dirs`). A folder is descended into through the
 * folder opened when it was seen (Linux: `/proc/self/fd`), so code in the sandbox that swaps a folder of its
 * layer for a link while Sandpit walks it sends the walk nowhere else; elsewhere a folder is listed only when it
 * is still the one seen. The system calls are made in a row (no promise per file: a 10,000-file layer takes a
 * few tens of milliseconds), with a turn of the event loop every few hundred entries.
 */
export async function walkTree(root: string): Promise<{ entries: TreeEntry[]; dirs: TreeEntry[] }> {
  const entries: TreeEntry[] = [];
  const dirs: TreeEntry[] = [];
  let sinceTurn = 0;
  const walk = async (fd: number, path: string, rel: string): Promise<void> => {
    const base = ANCHORED ? `/proc/self/fd/${fd}` : path;
    for (const name of readdirSync(base)) {
      const childRel = rel === '' ? name : `${rel}/${name}`;
      const info = lstatSync(`${base}/${name}`, { throwIfNoEntry: false });
      if (!info) continue;
      if (++sinceTurn >= ENTRIES_PER_TURN) {
        sinceTurn = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (!info.isDirectory()) {
        entries.push({ rel: childRel, info });
        continue;
      }
      let child: number;
      try {
        child = openSync(`${base}/${name}`, DIR_FLAGS);
      } catch {
        continue; // gone, or no longer a folder: the session changed it meanwhile
      }
      try {
        const opened = fstatSync(child);
        if (opened.ino !== info.ino || opened.dev !== info.dev) continue;
        dirs.push({ rel: childRel, info });
        await walk(child, join(path, name), childRel);
      } finally {
        closeSync(child);
      }
    }
  };
  const top = openSync(root, DIR_FLAGS);
  try {
    await walk(top, root, '');
  } finally {
    closeSync(top);
  }
  return { entries, dirs };
}
