import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StdioCommand } from '../../shared/domain/connect';
import { resolveHome } from '../home';

/** The repository's `bin/sandpit.mjs`, found relative to this source file (works under tsx, vitest and the CLI bundle). */
export function defaultSandpitBin(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/sandpit.mjs');
}

export interface StdioCommandOptions {
  home: string;
  /** Absolute path of bin/sandpit.mjs; default: the repository's. */
  bin?: string;
  /** The Node.js binary; default: this process's, unless it is Electron's (then `node` on the PATH). */
  node?: string;
}

/**
 * How an assistant starts `sandpit mcp` for this data folder: Node with the absolute path of
 * bin/sandpit.mjs (no PATH or npx lookup), plus SANDPIT_HOME when the folder is not the default one.
 */
export function stdioCommand(options: StdioCommandOptions): StdioCommand {
  const node = options.node ?? (process.versions.electron ? 'node' : process.execPath);
  const defaultHome = resolveHome({ ...process.env, SANDPIT_HOME: undefined });
  return {
    command: node,
    args: [options.bin ?? defaultSandpitBin(), 'mcp'],
    ...(resolve(options.home) === resolve(defaultHome) ? {} : { env: { SANDPIT_HOME: options.home } }),
  };
}
