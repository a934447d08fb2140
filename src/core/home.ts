import { homedir } from 'node:os';
import { join } from 'node:path';

/** The data folder: $SANDPIT_HOME, else the OS's app-data folder for "Sandpit" (as Electron's userData). */
export function resolveHome(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.SANDPIT_HOME) return env.SANDPIT_HOME;
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Sandpit');
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Sandpit');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Sandpit');
}
