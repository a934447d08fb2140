import { constants } from 'node:fs';
import { copyFile, mkdir, open, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';

/** Where deleted files go: the system's trash, when this computer has one Sandpit knows how to use. */
export interface Trash {
  /** Moves the file to the trash; returns where it went. */
  put(path: string): Promise<string>;
}

/**
 * The freedesktop.org trash of the home folder (Linux: `$XDG_DATA_HOME/Trash`, by default
 * ~/.local/share/Trash): the file goes to `files/`, its original place and time to `info/<name>.trashinfo`,
 * so the desktop's trash can put it back. Another file system: copied there, then removed.
 */
export function freedesktopTrash(dir: string): Trash {
  return {
    async put(path: string): Promise<string> {
      await mkdir(join(dir, 'files'), { recursive: true, mode: 0o700 });
      await mkdir(join(dir, 'info'), { recursive: true, mode: 0o700 });
      const stamp = new Date().toISOString().slice(0, 19);
      const base = basename(path);
      for (let n = 1; n < 1000; n++) {
        const name = n === 1 ? base : `${base}.${n}`;
        let handle;
        try {
          handle = await open(
            join(dir, 'info', `${name}.trashinfo`),
            constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
            0o600,
          );
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
          throw error;
        }
        try {
          await handle.writeFile(`[Trash Info]\nPath=${encodeURI(path)}\nDeletionDate=${stamp}\n`);
        } finally {
          await handle.close();
        }
        const target = join(dir, 'files', name);
        try {
          await rename(path, target);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EXDEV') {
            await rm(join(dir, 'info', `${name}.trashinfo`), { force: true });
            throw error;
          }
          await copyFile(path, target, constants.COPYFILE_EXCL);
          await rm(path);
        }
        return target;
      }
      throw new Error(`the trash already holds 1,000 files named ${base}`);
    },
  };
}

/** The trash of this computer: freedesktop's on Linux, ~/.Trash on macOS; none elsewhere (a deletion then needs a confirmation). */
export function systemTrash(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home = homedir(),
): Trash | undefined {
  if (platform === 'linux') return freedesktopTrash(join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'Trash'));
  if (platform === 'darwin') {
    return {
      async put(path: string): Promise<string> {
        const target = join(home, '.Trash', `${basename(path)} ${Date.now()}`);
        await rename(path, target);
        return target;
      },
    };
  }
  return undefined;
}
