/**
 * Whether the Electron binary is installed. electron 45 fetches it lazily from GitHub on the first
 * `require('electron')`, so this never requires the package: it only looks for the file that package would
 * return (node_modules/electron/path.txt names it under dist/).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ELECTRON_SKIP_REASON =
  'Electron binary not installed on this machine (electron is fetched lazily from GitHub, unreachable here)';

/** The Electron executable, or undefined when it is not installed. */
export function electronExecutable(root: string = process.cwd()): string | undefined {
  const pkg = join(root, 'node_modules', 'electron');
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const relative = readFileSync(pathFile, 'utf8').trim();
  const dist = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(pkg, 'dist');
  const executable = join(dist, relative);
  return relative !== '' && existsSync(executable) ? executable : undefined;
}

export const electronAvailable: boolean = electronExecutable() !== undefined;
