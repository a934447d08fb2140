import { PACKAGES_DIR } from '../sandbox/sandbox-paths';
import { checkWith, installWithHelper } from './helper-install';
import type { InstallSettings, Installer } from './helper-install';
import type { PackageSpec } from './package-specs';

const PYTHON = '/opt/sandpit/venv/bin/python3';

function pipArgv(specs: PackageSpec[], settings: InstallSettings): string[] {
  const index = new URL(settings.pipIndexUrl);
  const trusted = index.protocol === 'http:' ? ['--trusted-host', index.hostname] : [];
  const proxy = settings.proxy ? ['--proxy', settings.proxy.pipProxyUrl] : [];
  return [
    PYTHON, '-m', 'pip', 'install', '--no-cache-dir', '--disable-pip-version-check', '--no-input', '--upgrade',
    '--target', PACKAGES_DIR, '--index-url', settings.pipIndexUrl, ...trusted, ...proxy, '--', ...specs.map((s) => s.raw),
  ];
}

/** The last lines of pip's output that say what went wrong. */
export function pipError(stderr: string, stdout: string): string {
  const lines = `${stdout}\n${stderr}`.split('\n').map((l) => l.trim()).filter(Boolean);
  const errors = lines.filter((l) => l.startsWith('ERROR:'));
  return (errors.length > 0 ? errors.slice(-3) : lines.slice(-3)).join(' ').slice(0, 2_000) || 'the installer failed without a message';
}

const CHECK_SCRIPT = [
  'import json, sys',
  'from importlib import metadata',
  'out = {}',
  'for name in sys.argv[1:]:',
  '    try:',
  '        out[name] = metadata.version(name)',
  '    except metadata.PackageNotFoundError:',
  '        out[name] = None',
  'print(json.dumps(out))',
].join('\n');

/** pip: installs into the session's package store (on PYTHONPATH); checks what its Python can import. */
export const pipInstaller: Installer = {
  install: (sandbox, specs, settings, log) =>
    installWithHelper(sandbox, specs, settings, log, (batch) => ({
      cmd: pipArgv(batch, settings),
      env: { PIP_NO_WARN_SCRIPT_LOCATION: '1', PYTHONDONTWRITEBYTECODE: '1' },
      describeError: pipError,
      manager: 'pip',
      indexUrl: settings.pipIndexUrl,
    })),
  check: (sandbox, specs) => checkWith(sandbox, ['python3', '-c', CHECK_SCRIPT], specs),
};
