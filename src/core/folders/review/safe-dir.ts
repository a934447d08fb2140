import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { chmod, chown, lstat, mkdir, open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { SandpitError } from '../../../shared/api/errors';
import { safeParts } from './review-files';

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

function outside(rel: string, at: string, info: Stats | undefined): SandpitError {
  return new SandpitError(
    'DENIED',
    `${rel} would be written through ${at}, which is ${info?.isSymbolicLink() ? 'a link' : 'not a folder'}: it would leave the folder.`,
    { reason: 'outside-folder' },
  );
}

/**
 * A folder held open (Linux): names inside it are reached through `/proc/self/fd/<fd>/<name>`, which the kernel
 * resolves from the open folder itself, never again from its path. So a folder on the way that code in a sandbox
 * swaps for a link after it was opened cannot send a write elsewhere: each step is opened without following a
 * link, from the one before. Used where Sandpit writes into a tree the sandbox can change while it does.
 */
export class HeldDir {
  private constructor(private readonly handle: FileHandle) {}

  static async open(path: string): Promise<HeldDir> {
    return new HeldDir(await open(path, DIR_FLAGS));
  }

  /** The path of `name` inside this folder (resolved from the open folder). */
  path(name: string): string {
    if (name === '' || name === '.' || name === '..' || name.includes('/')) throw new Error(`"${name}" is not a name`);
    return `/proc/self/fd/${this.handle.fd}/${name}`;
  }

  async stat(): Promise<Stats> {
    return this.handle.stat();
  }

  /** The folder `name` inside this one, made (with `make`'s mode and owner) when it is missing; a link there is refused. */
  async child(name: string, make?: { mode: number; uid?: number; gid?: number }): Promise<HeldDir | undefined> {
    const path = this.path(name);
    try {
      return new HeldDir(await open(path, DIR_FLAGS));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' || !make) {
        if (code === 'ENOENT') return undefined;
        if (code === 'ELOOP' || code === 'ENOTDIR') throw outside(name, name, await lstat(path).catch(() => undefined));
        throw error;
      }
    }
    await mkdir(path, { mode: make.mode });
    const made = new HeldDir(await open(path, DIR_FLAGS));
    if (make.uid !== undefined && make.gid !== undefined) await chown(made.selfPath(), make.uid, make.gid);
    await chmod(made.selfPath(), make.mode & 0o7777);
    return made;
  }

  /** This folder's own path through its descriptor (for chown/chmod of the folder itself). */
  selfPath(): string {
    return `/proc/self/fd/${this.handle.fd}`;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

/**
 * Opens the folder holding `rel` inside `root`, one folder at a time (none may be a link), making missing ones
 * with `make(relOfFolder)`'s mode and owner when given; undefined when one is missing and nothing is made.
 * The caller closes it.
 */
export async function holdParent(
  root: string,
  rel: string,
  make?: (folder: string) => Promise<{ mode: number; uid?: number; gid?: number }>,
): Promise<{ dir: HeldDir; name: string } | undefined> {
  const parts = safeParts(rel);
  let dir = await HeldDir.open(root);
  try {
    for (let i = 0; i < parts.length - 1; i++) {
      const spec = make ? await make(parts.slice(0, i + 1).join('/')) : undefined;
      const next = await dir.child(parts[i]!, spec).catch(async (error: unknown) => {
        if (error instanceof SandpitError)
          throw outside(rel, parts.slice(0, i + 1).join('/'), await lstat(dir.path(parts[i]!)).catch(() => undefined));
        throw error;
      });
      await dir.close();
      if (!next) return undefined;
      dir = next;
    }
    return { dir, name: parts[parts.length - 1]! };
  } catch (error) {
    await dir.close().catch(() => undefined);
    throw error;
  }
}
