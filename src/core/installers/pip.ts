import { PACKAGES_DIR, WORKSPACE_DIR } from '../sandbox/sandbox-paths';
import { checkWith, installWithHelper } from './helper-install';
import { runLine } from './dockerfile-lines';
import type { InstallSettings, Installer } from './helper-install';
import type { PackageSpec } from './package-specs';

const PYTHON = '/opt/sandpit/venv/bin/python3';
/**
 * Isolated mode for every Python Sandpit starts itself: no PYTHON* variables (so not the session's PYTHONPATH),
 * no user site (HOME is /workspace: ~/.local would be the workspace), neither the working folder nor the script's
 * on the import path. What it imports comes from the image alone, which the session cannot write.
 */
export const ISOLATED = '-I';

function pipArgv(specs: PackageSpec[], settings: InstallSettings): string[] {
  const index = new URL(settings.pipIndexUrl);
  const trusted = index.protocol === 'http:' ? ['--trusted-host', index.hostname] : [];
  const proxy = settings.proxy ? ['--proxy', settings.proxy.pipProxyUrl] : [];
  return [
    PYTHON, ISOLATED, '-m', 'pip', 'install', '--no-cache-dir', '--disable-pip-version-check', '--no-input', '--upgrade',
    '--target', PACKAGES_DIR, '--index-url', settings.pipIndexUrl, ...trusted, ...proxy, '--', ...specs.map((s) => s.raw),
  ];
}

/** The last lines of pip's output that say what went wrong. */
export function pipError(stderr: string, stdout: string): string {
  const lines = `${stdout}\n${stderr}`.split('\n').map((l) => l.trim()).filter(Boolean);
  const errors = lines.filter((l) => l.startsWith('ERROR:'));
  return (errors.length > 0 ? errors.slice(-3) : lines.slice(-3)).join(' ').slice(0, 2_000) || 'the installer failed without a message';
}

// Reads the installed distributions' metadata (never imports them) from where the session's Python finds
// packages: its package store, its own import path and the workspace, in that order (as the session sees them).
const CHECK_SCRIPT = [
  'import json, sys',
  'from importlib import metadata',
  `path = [${JSON.stringify(PACKAGES_DIR)}] + sys.path + [${JSON.stringify(WORKSPACE_DIR)}]`,
  'out = {}',
  'for name in sys.argv[1:]:',
  '    found = next(iter(metadata.distributions(name=name, path=path)), None)',
  '    out[name] = found.version if found is not None else None',
  'print(json.dumps(out))',
].join('\n');

/** pip: installs into the session's package store (on PYTHONPATH); checks what its Python can import (metadata only). */
export const pipInstaller: Installer = {
  install: (sandbox, specs, settings, log) =>
    installWithHelper(sandbox, specs, settings, log, (batch) => ({
      cmd: pipArgv(batch, settings),
      env: { PIP_NO_WARN_SCRIPT_LOCATION: '1', PYTHONDONTWRITEBYTECODE: '1' },
      describeError: pipError,
      manager: 'pip',
      indexUrl: settings.pipIndexUrl,
    })),
  check: (sandbox, specs) => checkWith(sandbox, [PYTHON, ISOLATED, '-c', CHECK_SCRIPT], specs),
};

/** pip's lines of an environment's Dockerfile: into the image's venv, from the index the settings name. */
export function pipDockerfile(specs: readonly string[], indexUrl: string): string[] {
  const index = new URL(indexUrl);
  const trusted = index.protocol === 'http:' ? ['--trusted-host', index.hostname] : [];
  return [runLine([PYTHON, '-m', 'pip', 'install', '--no-cache-dir', '--disable-pip-version-check', '--no-input', '--index-url', indexUrl, ...trusted, '--', ...specs])];
}
