import { toErrorBody } from '../../shared/api/errors';
import type { ChangeOutcome } from '../../shared/domain/folder-changes';
import type { ExecutionResult } from '../../shared/domain/execution';
import type { CommandResult, PackageOutcome } from '../../shared/domain/packages';
import type { PackageCheck } from '../installers/helper-install';
import type { ProcessInfo } from '../../shared/domain/process';
import type { PreviewInfo } from '../../shared/domain/preview';
import type { AuditFinish } from './audit-writer';

/** A run of code (execute, runFile): its own status, output, exit code, artifacts and error. */
export function executionFinish(result: ExecutionResult): AuditFinish {
  const error = result.error ? [`${result.error.name}: ${result.error.value}`, result.error.traceback].filter((part) => part !== '').join('\n') : undefined;
  return {
    status: result.status,
    sessionId: result.sessionId,
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    stdout: result.stdout,
    stderr: result.stderr,
    stdoutTruncated: result.truncated.stdout,
    stderrTruncated: result.truncated.stderr,
    artifacts: result.artifacts.map((a) => a.sha256),
    errorMessage: error ?? result.message,
    ...(result.result === undefined ? {} : { result: result.result }),
  };
}

/** A shell command: ok on exit 0, timeout when it was stopped at its limit, else error. */
export function commandFinish(result: CommandResult): AuditFinish {
  return {
    status: result.timedOut ? 'timeout' : result.exitCode === 0 ? 'ok' : 'error',
    sessionId: result.sessionId,
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    stdout: result.stdout,
    stderr: result.stderr,
  };
}

/** An install: ok when every package installed; one line per package (failures on stderr). */
export function installFinish(results: readonly PackageOutcome[]): AuditFinish {
  const failed = results.filter((r) => !r.ok);
  return {
    status: failed.length === 0 ? 'ok' : 'error',
    stdout: results.filter((r) => r.ok).map((r) => `${r.package}: installed${r.version ? ` ${r.version}` : ''}\n`).join(''),
    stderr: failed.map((r) => `${r.package}: ${r.error ?? 'failed'}\n`).join(''),
    errorMessage: failed.length === 0 ? undefined : `Could not install ${failed.map((r) => r.package).join(', ')}.`,
  };
}

/** A package check: it ran to the end (ok); one line per package, what is installed and what is not. */
export function checkFinish(packages: readonly PackageCheck[]): AuditFinish {
  return {
    status: 'ok',
    stdout: packages.map((p) => `${p.name}: ${p.installed ? `installed${p.version ? ` ${p.version}` : ''}` : 'not installed'}\n`).join(''),
    stderr: '',
  };
}

/** A call that threw: `denied` when it was refused, else `failed`; the error's code and message kept. */
export function failureFinish(error: unknown): AuditFinish {
  const body = toErrorBody(error);
  return {
    status: body.code === 'DENIED' ? 'denied' : body.code === 'EXEC_TIMEOUT' ? 'timeout' : 'failed',
    errorCode: body.code,
    errorMessage: body.message,
  };
}

/** What an apply or discard row shows as its code: the folder and the files (or "all"). */
export function changeCode(mountPath: string, paths: readonly string[] | undefined): string {
  return [`folder ${mountPath}`, ...(paths ? paths : ['(every pending change)'])].join('\n');
}

/** An apply or discard: one line per file, what happened and its hashes before and after; ok when every file was done. */
export function changeFinish(outcomes: readonly ChangeOutcome[]): AuditFinish {
  const line = (o: ChangeOutcome): string =>
    `${o.done ? 'done' : 'not done'}: ${o.path} — ${o.message}${o.beforeSha256 || o.afterSha256 ? ` (sha256 before ${o.beforeSha256 ?? 'none'}, after ${o.afterSha256 ?? 'none'})` : ''}${o.trashed ? ` [trash: ${o.trashed}]` : ''}`;
  return {
    status: outcomes.every((o) => o.done) ? 'ok' : 'error',
    stdout: outcomes.filter((o) => o.done).map(line).join('\n'),
    stderr: outcomes.filter((o) => !o.done).map(line).join('\n'),
  };
}
/**
 * A long-running process (start_process), completed when it ends: ok on exit 0, error on another exit status,
 * killed when someone (or its session) stopped it; its last lines of output are kept.
 */
export function processEndFinish(info: ProcessInfo, tail: string): AuditFinish {
  return {
    status: info.state === 'stopped' ? 'killed' : info.exitCode === 0 ? 'ok' : 'error',
    sessionId: info.sessionId,
    ...(info.exitCode === undefined ? {} : { exitCode: info.exitCode }),
    stdout: tail,
    ...(info.stoppedBy ? { errorMessage: `Stopped: ${info.stoppedBy}.` } : {}),
  };
}

/** A process whose end could not be awaited (it is gone already): its state now. */
export function processStartFinish(info: ProcessInfo): AuditFinish {
  return processEndFinish(info, info.lastLines.join('\n'));
}

/** A preview opened: which port of which session, at which origin (never its capability). */
export function previewFinish(info: PreviewInfo): AuditFinish {
  return { status: 'ok', sessionId: info.sessionId, durationMs: 0, stdout: `Opened a preview of port ${info.port} at ${info.origin}${info.path}` };
}
