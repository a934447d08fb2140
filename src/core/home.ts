import { homedir } from 'node:os';
import { join } from 'node:path';

/** The data folder: $SANDPIT_HOME, else the OS's app-data folder for "Sandpit" (as Electron's userData). */
export function resolveHome(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  // A Claude Desktop extension passes its "data folder" setting as ${user_config.data_folder}: left empty, it may
  // arrive as "" or as that placeholder unfilled. Either means "the default folder", never a folder of that name.
  const given = env.SANDPIT_HOME;
  if (given && !/^\$\{[^}]*\}$/.test(given)) return given;
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Sandpit');
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Sandpit');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Sandpit');
}
