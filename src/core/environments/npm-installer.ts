import { SandpitError } from '../../shared/api/errors';
import type { PackageOutcome } from '../../shared/domain/packages';
import { PACKAGES_DIR, SANDBOX_USER } from '../docker/container-profile';
import type { DockerClient } from '../docker/docker-client';
import { installWithHelper } from './package-installer';
import type { InstallSettings, InstallTarget, InstallerDeps } from './package-installer';
import type { PackageSpec } from './package-names';

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

/**
 * Installs npm packages for a session in a helper container (same image, argv only, the session's
 * package volume at PACKAGES_DIR). npm saves them in PACKAGES_DIR/package.json, so a later install
 * keeps the earlier ones (npm would prune packages it does not know of).
 */
export async function installNpmPackages(deps: InstallerDeps, target: InstallTarget, specs: PackageSpec[], settings: InstallSettings): Promise<PackageOutcome[]> {
  return installWithHelper(deps, target, specs, settings, (batch) => ({
    cmd: npmArgv(batch, settings),
    // The cache and logs go to /tmp (the root fs is read-only); no update check against the registry.
    env: { npm_config_cache: '/tmp/.npm', npm_config_update_notifier: 'false', npm_config_loglevel: 'warn', NO_COLOR: '1' },
    describeError: npmError,
  }));
}

// Reads <dir>/<name>/package.json for each name, from the workspace's node_modules and NODE_PATH.
const CHECK_SCRIPT = [
  "const fs = require('fs'), path = require('path');",
  "const dirs = [path.join(process.cwd(), 'node_modules'), ...(process.env.NODE_PATH || '').split(path.delimiter).filter(Boolean)];",
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

/** Installed version of each npm package as the session's require() sees it (workspace, then NODE_PATH). */
export async function checkNpmPackages(docker: DockerClient, containerId: string, specs: PackageSpec[]): Promise<Array<{ name: string; installed: boolean; version?: string }>> {
  const r = await docker.exec(containerId, ['node', '-e', CHECK_SCRIPT, ...specs.map((s) => s.name)], { user: SANDBOX_USER, workingDir: '/workspace', timeoutMs: 30_000 });
  if (r.exitCode !== 0) throw new SandpitError('EXEC_FAILED', `Could not check packages: ${r.stderr.trim().slice(0, 500)}`);
  const found = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Record<string, string | null>;
  return specs.map((s) => {
    const version = found[s.name];
    return version ? { name: s.name, installed: true, version } : { name: s.name, installed: false };
  });
}
