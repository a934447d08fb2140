import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Whether a file or folder is there. */
export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** The file's text, or undefined when there is none. */
export async function readIfThere(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Replaces a settings file's text all at once (a new file beside it, then renamed over it), so an
 * assistant reading it meanwhile sees the old or the new text, never half. A link is followed (the file it
 * points to is written, the link stays) and the file keeps its permissions.
 */
export async function writeInPlace(path: string, text: string): Promise<void> {
  const target = await realpath(path).catch(() => path);
  await mkdir(dirname(target), { recursive: true });
  const mode = await stat(target).then(
    (s) => s.mode & 0o777,
    () => 0o600,
  );
  const temp = join(dirname(target), `.${basename(target)}.sandpit-${randomBytes(4).toString('hex')}`);
  try {
    await writeFile(temp, text, { mode, flag: 'wx' });
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Removes a file (nothing when it is already gone). */
export async function removeFile(path: string): Promise<void> {
  await rm(path, { force: true });
}
