import { PACKAGES_DIR, WORKSPACE_DIR } from '../sandbox/sandbox-paths';
import { checkWith, installWithHelper } from './helper-install';
import { runLine } from './dockerfile-lines';
import type { InstallSettings, Installer } from './helper-install';
import type { PackageSpec } from './package-specs';

/** Where runtime npm installs land: `<PACKAGES_DIR>/node_modules`, on the session's NODE_PATH. */
export const NPM_MODULES_DIR = `${PACKAGES_DIR}/node_modules`;

function npmArgv(specs: PackageSpec[], settings: InstallSettings): string[] {
  return [
    'npm', 'install', '--prefix', PACKAGES_DIR, '--no-audit', '--no-fund', '--no-package-lock',
    '--registry', settings.npmRegistryUrl, '--', ...specs.map((s) => s.raw),
  ];
}

/** The lines of npm's output that say what went wrong (without the "complete log" pointer). */
export function npmError(stderr: string, stdout: string): string {
  const lines = `${stderr}\n${stdout}`.split('\n').map((l) => l.trim()).filter(Boolean);
  const errors = lines
    .filter((l) => /^npm (ERR!|error)/.test(l))
    .map((l) => l.replace(/^npm (ERR!|error)\s*/, '').trim())
    .map((l) => l.replace(/\s+/g, ' '))
    .filter((l) => l !== '' && l !== '404' && !/complete log of this run|\/_logs\/|Note that you can also install from|tarball, folder, http url/i.test(l));
  return (errors.length > 0 ? errors.slice(0, 4) : lines.slice(-3)).join(' ').slice(0, 2_000) || 'npm failed without a message';
}

// Reads <dir>/<name>/package.json for each name (as data: nothing of a package is loaded), from the workspace's
// node_modules and NODE_PATH. It runs outside the workspace and requires nothing but Node's own modules.
const CHECK_SCRIPT = [
  "const fs = require('fs'), path = require('path');",
  `const dirs = [${JSON.stringify(`${WORKSPACE_DIR}/node_modules`)}, ...(process.env.NODE_PATH || '').split(path.delimiter).filter(Boolean)];`,
  'const out = {};',
  'for (const name of process.argv.slice(1)) {',
  '  out[name] = null;',
  '  for (const dir of dirs) {',
  '    try {',
  "      const v = JSON.parse(fs.readFileSync(path.join(dir, name, 'package.json'), 'utf8')).version;",
  "      if (typeof v === 'string') { out[name] = v; break; }",
  '    } catch {}',
  '  }',
  '}',
  "process.stdout.write(JSON.stringify(out) + '\\n');",
].join('\n');

/**
 * npm: installs in a helper into the session's package store (NODE_PATH). npm saves them in
 * PACKAGES_DIR/package.json, so a later install keeps the earlier ones (npm would prune packages it does
 * not know of). Checks read what the session's require() sees (workspace, then NODE_PATH).
 */
export const npmInstaller: Installer = {
  install: (sandbox, specs, settings, log) =>
    installWithHelper(sandbox, specs, settings, log, (batch) => ({
      cmd: npmArgv(batch, settings),
      // The cache and logs go to /tmp (the root fs is read-only); no update check against the registry.
      // NODE_PATH is the session's package store: npm's own modules must not be looked up there.
      env: { NODE_PATH: '', npm_config_cache: '/tmp/.npm', npm_config_update_notifier: 'false', npm_config_loglevel: 'warn', NO_COLOR: '1' },
      describeError: npmError,
      manager: 'npm',
      indexUrl: settings.npmRegistryUrl,
    })),
  check: (sandbox, specs) => checkWith(sandbox, ['node', '-e', CHECK_SCRIPT], specs),
};

/** Where an environment's npm packages are baked (on NODE_PATH; runtime installs go to the session volume). */
export const ENV_NODE_MODULES = '/opt/sandpit/env/node_modules';

/** npm's lines of an environment's Dockerfile: into ENV_NODE_MODULES, which joins NODE_PATH after the session's own store. */
export function npmDockerfile(specs: readonly string[], registryUrl: string): string[] {
  return [
    runLine(['mkdir', '-p', ENV_NODE_MODULES]),
    runLine(['npm', 'install', '--prefix', '/opt/sandpit/env', '--no-audit', '--no-fund', '--no-package-lock', '--registry', registryUrl, '--', ...specs]),
    `ENV NODE_PATH=${NPM_MODULES_DIR}:${ENV_NODE_MODULES}`,
  ];
}
