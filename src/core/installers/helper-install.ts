import { SandpitError } from '../../shared/api/errors';
import type { InstallDiagnosis, PackageOutcome } from '../../shared/domain/packages';
import type { PackageManager } from '../../shared/domain/languages';
import type { IndexSetting } from '../../shared/domain/package-managers';
import type { Logger } from '../log';
import type { Sandbox } from '../sandbox/sandbox-backend';
import { diagnoseInstall, diagnosisText } from './install-diagnosis';
import type { PackageSpec } from './package-specs';

/** What installs use: each manager's index (the registry's index settings; a private or offline mirror works), and how to get there. */
export interface InstallSettings extends Record<IndexSetting, string> {
  /** Network the short-lived installer joins; the session itself stays without one. */
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
  /** Passed to pip as `--proxy` (`http://<sessionId>:<secret>@<gateway>:<port>`, the session's credential). */
  pipProxyUrl: string;
}

/** One run of an installer in the helper: its argv (never a shell) and extra environment. */
export interface InstallerCommand {
  cmd: string[];
  env: Record<string, string>;
  /** The lines of the installer's output that say what went wrong. */
  describeError: (stderr: string, stdout: string) => string;
  /** Which installer it is (for the plain-words diagnosis) and the index it reaches for. */
  manager: PackageManager;
  indexUrl: string;
}

/** A package manager's two jobs in a session: install (through a helper) and check what is importable. */
export interface Installer {
  install(sandbox: Sandbox, specs: PackageSpec[], settings: InstallSettings, log: Logger): Promise<PackageOutcome[]>;
  check(sandbox: Sandbox, specs: PackageSpec[]): Promise<PackageCheck[]>;
}

export interface PackageCheck {
  name: string;
  installed: boolean;
  version?: string;
}

const MAX_LOG_BYTES = 256 * 1024;

/**
 * Runs an installer for a session in a short-lived helper beside its sandbox: same image, argv only
 * (never a shell), writing into the session's package store, on the install network — or, with
 * `settings.proxy`, on the egress network through Sandpit's proxy. The session itself never gets a
 * network. All the packages at once; when that fails, one at a time, so each package gets its own outcome.
 */
export async function installWithHelper(
  sandbox: Sandbox,
  specs: PackageSpec[],
  settings: InstallSettings,
  log: Logger,
  command: (batch: PackageSpec[]) => InstallerCommand,
): Promise<PackageOutcome[]> {
  const runOnce = async (batch: PackageSpec[]): Promise<{ ok: boolean; error?: string; diagnosis?: InstallDiagnosis }> => {
    const { cmd, env, describeError, manager, indexUrl } = command(batch);
    log.info('installing packages', { sessionId: sandbox.sessionId, packages: batch.map((b) => b.raw), installer: cmd[0] });
    const r = await sandbox.runHelper({
      cmd,
      env: { ...settings.proxy?.env, ...env },
      network: settings.proxy?.network ?? settings.installNetwork,
      timeoutMs: settings.installTimeoutMs,
      maxOutputBytes: MAX_LOG_BYTES,
    });
    if (r.exitCode === 0 && !r.timedOut) return { ok: true };
    const detail = r.timedOut ? `the install did not finish within ${Math.round(settings.installTimeoutMs / 1000)} s` : describeError(r.stderr, r.stdout);
    const diagnosis = diagnoseInstall({ manager, log: `${r.stdout}\n${r.stderr}\n${detail}`, packages: batch.map((b) => b.raw), indexUrl });
    return { ok: false, error: detail, diagnosis };
  };
  const failed = (spec: PackageSpec, run: { error?: string; diagnosis?: InstallDiagnosis }): PackageOutcome => ({
    package: spec.raw,
    ok: false,
    error: run.diagnosis ? diagnosisText(run.diagnosis) : (run.error ?? 'the install failed'),
    ...(run.error ? { detail: run.error } : {}),
    ...(run.diagnosis ? { diagnosis: run.diagnosis } : {}),
  });

  if (specs.length === 0) throw new SandpitError('INVALID_INPUT', 'No packages to install.');
  const all = await runOnce(specs);
  if (all.ok) return specs.map((s) => ({ package: s.raw, ok: true }));
  // When the index cannot be reached (or the disk is full, or it timed out), trying each alone changes nothing.
  if (specs.length === 1 || (all.diagnosis && ['unreachable', 'disk', 'timeout'].includes(all.diagnosis.cause))) return specs.map((s) => failed(s, all));
  // Find out which ones failed: one at a time.
  const outcomes: PackageOutcome[] = [];
  for (const s of specs) {
    const one = await runOnce([s]);
    outcomes.push(one.ok ? { package: s.raw, ok: true } : failed(s, one));
  }
  return outcomes;
}

/**
 * Where Sandpit's own programs run in a session: outside /workspace, so nothing there is found as a module by
 * being in the working folder (the check scripts also never put it on their import path).
 */
export const HELPER_WORKING_DIR = '/';

/** Runs a check script in the session (as the sandbox user) and reads its JSON `{name: version|null}`. */
export async function checkWith(sandbox: Sandbox, argv: string[], specs: PackageSpec[]): Promise<PackageCheck[]> {
  const r = await sandbox.exec([...argv, ...specs.map((s) => s.name)], { timeoutMs: 30_000, workingDir: HELPER_WORKING_DIR });
  if (r.exitCode !== 0) throw new SandpitError('EXEC_FAILED', `Could not check packages: ${r.stderr.trim().slice(0, 500)}`);
  const found = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Record<string, string | null>;
  return specs.map((s) => {
    const version = found[s.name];
    return version ? { name: s.name, installed: true, version } : { name: s.name, installed: false };
  });
}
