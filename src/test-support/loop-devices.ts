import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { attachedLoops } from '../core/docker/workspace-storage';

const execFileAsync = promisify(execFile);

/** The file a loop device is attached to now (its name before it was removed, if it was), or undefined when it is detached. */
export async function backingFile(device: string): Promise<string | undefined> {
  return (await attachedLoops()).find((loop) => loop.device === device)?.file.replace(/ \(deleted\)$/, '');
}

/** Every loop device attached to a file under `dir` (the file removed since, too). */
export async function loopsUnder(dir: string): Promise<string[]> {
  return (await attachedLoops()).filter((loop) => loop.file.replace(/ \(deleted\)$/, '').startsWith(`${dir}/`)).map((loop) => loop.device);
}

/**
 * Detaches every loop device attached to a file under `dir`: a test's data folder is removed after it, and a kept
 * session's disk stays attached on purpose while Sandpit is away. Never throws.
 */
export async function detachLoopsUnder(dir: string): Promise<void> {
  for (const device of await loopsUnder(dir)) await execFileAsync('losetup', ['-d', device], { timeout: 10_000 }).catch(() => undefined);
}
