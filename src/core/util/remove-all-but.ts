import { readdir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Removes a folder with everything in it, except the entries `keep` says stay (the folder then stays too, and with
 * it the entries named in `withKept`, e.g. the owner file that tells a reaper whose folder it is).
 */
export async function removeAllBut(dir: string, keep: (name: string) => Promise<boolean>, withKept: readonly string[] = []): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let kept = 0;
  for (const name of names) {
    if (withKept.includes(name)) continue;
    if (await keep(name)) kept += 1;
    else await rm(join(dir, name), { recursive: true, force: true });
  }
  if (kept > 0) return;
  for (const name of names.filter((n) => withKept.includes(n))) await rm(join(dir, name), { recursive: true, force: true });
  await rmdir(dir).catch(() => rm(dir, { recursive: true, force: true }));
}
