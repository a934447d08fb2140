import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The file a loop device is attached to now (from sysfs), or undefined when it is detached. */
export async function backingFile(device: string): Promise<string | undefined> {
  return (await readFile(`/sys/block/${basename(device)}/loop/backing_file`, 'utf8').catch(() => undefined))?.trim().replace(/ \(deleted\)$/, '');
}

/** Every loop device attached to a file under `dir` (the file removed since, too). */
export async function loopsUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of (await readdir('/sys/block').catch(() => [] as string[])).filter((n) => n.startsWith('loop'))) {
    const file = await backingFile(`/dev/${name}`);
    if (file?.startsWith(`${dir}/`)) found.push(`/dev/${name}`);
  }
  return found;
}

/**
 * Detaches every loop device attached to a file under `dir`: a test's data folder is removed after it, and a kept
 * session's disk stays attached on purpose while Sandpit is away. Never throws.
 */
export async function detachLoopsUnder(dir: string): Promise<void> {
  for (const device of await loopsUnder(dir)) await execFileAsync('losetup', ['-d', device], { timeout: 10_000 }).catch(() => undefined);
}
