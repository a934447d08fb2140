import { SandpitError } from '../../shared/api/errors';
import type { PackageOutcome } from '../../shared/domain/packages';
import { DEFAULT_LIMITS } from '../../shared/domain/limits';
import { PACKAGES_DIR, SANDBOX_USER, hardenedContainerSpec } from '../docker/container-profile';
import type { DockerClient } from '../docker/docker-client';
import { LABEL, sessionLabels } from '../docker/labels';
import type { InstanceIdentity } from '../docker/labels';
import type { Logger } from '../log';
import { newId } from '../util/ids';
import type { PackageSpec } from './package-names';

export interface InstallSettings {
  /** PEP 503 simple index (a private or offline mirror works). */
  pipIndexUrl: string;
  npmRegistryUrl: string;
  /** Docker network the short-lived installer joins; the session itself stays on NetworkMode none. */
  installNetwork: string;
  installTimeoutMs: number;
  /** Sandpit's egress proxy: when present the installer joins its network (not installNetwork) and reaches the index through it. */
  proxy?: InstallProxy;
}

/** What the installer needs of the egress gateway (`EgressGateway.installerProxy(sessionId)` builds it). */
export interface InstallProxy {
  /** The internal Docker network whose gateway address the proxy listens on. */
  network: string;
  /** HTTP(S)_PROXY and friends, pointing at the proxy. */
  env: Record<string, string>;
  /** Passed to pip as `--proxy` (`http://session:<id>@<gateway>:<port>`). */
  pipProxyUrl: string;
}

export interface InstallTarget {
  sessionId: string;
  image: string;
  packagesVolume: string;
}

export interface InstallerDeps {
  docker: DockerClient;
  identity: InstanceIdentity;
  log: Logger;
}

const PIP = '/opt/sandpit/venv/bin/python3';
const MAX_LOG_BYTES = 256 * 1024;

function pipArgv(specs: PackageSpec[], settings: InstallSettings): string[] {
  const index = new URL(settings.pipIndexUrl);
  const trusted = index.protocol === 'http:' ? ['--trusted-host', index.hostname] : [];
  const proxy = settings.proxy ? ['--proxy', settings.proxy.pipProxyUrl] : [];
  return [
    PIP, '-m', 'pip', 'install', '--no-cache-dir', '--disable-pip-version-check', '--no-input', '--upgrade',
    '--target', PACKAGES_DIR, '--index-url', settings.pipIndexUrl, ...trusted, ...proxy, '--', ...specs.map((s) => s.raw),
  ];
}

/** The last lines of pip's output that say what went wrong. */
function pipError(stderr: string, stdout: string): string {
  const lines = `${stdout}\n${stderr}`.split('\n').map((l) => l.trim()).filter(Boolean);
  const errors = lines.filter((l) => l.startsWith('ERROR:'));
  return (errors.length > 0 ? errors.slice(-3) : lines.slice(-3)).join(' ').slice(0, 2_000) || 'the installer failed without a message';
}

/** One run of an installer in the helper container: its argv (never a shell) and extra environment. */
export interface InstallerCommand {
  cmd: string[];
  env: Record<string, string>;
  /** The lines of the installer's output that say what went wrong. */
  describeError: (stderr: string, stdout: string) => string;
}

/**
 * Runs an installer for a session in a short-lived helper container: same image, argv only (never a
 * shell), writing into the session's package volume, on the install network — or, with
 * `settings.proxy`, on the egress network through Sandpit's proxy. The session container itself
 * never gets a network. All the packages at once; when that fails, one at a time, so each package
 * gets its own outcome.
 */
export async function installWithHelper(
  deps: InstallerDeps,
  target: InstallTarget,
  specs: PackageSpec[],
  settings: InstallSettings,
  command: (batch: PackageSpec[]) => InstallerCommand,
): Promise<PackageOutcome[]> {
  const runOnce = async (batch: PackageSpec[]): Promise<{ ok: boolean; error?: string }> => {
    const { cmd, env, describeError } = command(batch);
    const spec = hardenedContainerSpec({
      name: `sandpit-install-${newId('i', 4)}`,
      image: target.image,
      limits: { ...DEFAULT_LIMITS, memoryMb: 1024, pids: 512, tmpMb: 1024, cpus: 2 },
      labels: sessionLabels(deps.identity, target.sessionId, { [LABEL.role]: 'installer' }),
      network: settings.proxy?.network ?? settings.installNetwork,
      volumes: { [target.packagesVolume]: PACKAGES_DIR },
      cmd,
      env: { ...settings.proxy?.env, HOME: '/tmp', TMPDIR: '/tmp', ...env },
    });
    spec.user = SANDBOX_USER;
    spec.openStdin = false;
    deps.log.info('installing packages', { sessionId: target.sessionId, packages: batch.map((b) => b.raw), installer: cmd[0] });
    const r = await deps.docker.runToCompletion(spec, { timeoutMs: settings.installTimeoutMs, maxOutputBytes: MAX_LOG_BYTES });
    if (r.timedOut) return { ok: false, error: `the install did not finish within ${Math.round(settings.installTimeoutMs / 1000)} s` };
    return r.exitCode === 0 ? { ok: true } : { ok: false, error: describeError(r.stderr, r.stdout) };
  };

  if (specs.length === 0) throw new SandpitError('INVALID_INPUT', 'No packages to install.');
  const all = await runOnce(specs);
  if (all.ok) return specs.map((s) => ({ package: s.raw, ok: true }));
  if (specs.length === 1) return [{ package: specs[0]!.raw, ok: false, error: all.error }];
  // Find out which ones failed: one at a time.
  const outcomes: PackageOutcome[] = [];
  for (const s of specs) {
    const one = await runOnce([s]);
    outcomes.push(one.ok ? { package: s.raw, ok: true } : { package: s.raw, ok: false, error: one.error });
  }
  return outcomes;
}

/** Installs pip packages for a session into its package volume (see installWithHelper). */
export async function installPipPackages(deps: InstallerDeps, target: InstallTarget, specs: PackageSpec[], settings: InstallSettings): Promise<PackageOutcome[]> {
  return installWithHelper(deps, target, specs, settings, (batch) => ({
    cmd: pipArgv(batch, settings),
    env: { PIP_NO_WARN_SCRIPT_LOCATION: '1', PYTHONDONTWRITEBYTECODE: '1' },
    describeError: pipError,
  }));
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

/** Installed version of each package as the session sees it (its import path includes the package dir). */
export async function checkPipPackages(docker: DockerClient, containerId: string, specs: PackageSpec[]): Promise<Array<{ name: string; installed: boolean; version?: string }>> {
  const r = await docker.exec(containerId, ['python3', '-c', CHECK_SCRIPT, ...specs.map((s) => s.name)], { user: SANDBOX_USER, timeoutMs: 30_000 });
  if (r.exitCode !== 0) throw new SandpitError('EXEC_FAILED', `Could not check packages: ${r.stderr.trim().slice(0, 500)}`);
  const found = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Record<string, string | null>;
  return specs.map((s) => {
    const version = found[s.name];
    return version ? { name: s.name, installed: true, version } : { name: s.name, installed: false };
  });
}
