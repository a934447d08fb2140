import { readdir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Removes a folder with everything in it, except the entries `keep` says stay (the folder then stays too). */
export async function removeAllBut(dir: string, keep: (name: string) => Promise<boolean>): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let kept = 0;
  for (const name of names) {
    if (await keep(name)) kept += 1;
    else await rm(join(dir, name), { recursive: true, force: true });
  }
  if (kept === 0) await rmdir(dir).catch(() => rm(dir, { recursive: true, force: true }));
}
