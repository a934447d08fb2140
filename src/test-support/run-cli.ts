import { spawn } from 'node:child_process';
import { dirname } from 'node:path';

export interface CliResult {
  /** The exit code (null when a signal ended it). */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** It ran past its timeout and was killed. */
  timedOut: boolean;
  durationMs: number;
}

export interface CliOptions {
  cwd?: string;
  /** The child's whole environment (nothing is inherited unless passed here). */
  env: Record<string, string>;
  /** After this the whole process group gets SIGTERM, and SIGKILL 5 s later. */
  timeoutMs: number;
}

const KILL_GRACE_MS = 5_000;

/**
 * A small environment for CLIs run by tests: PATH led by the directory of the Node running the tests (so a
 * `node` the CLI spawns is the same Node 24), HOME, TMPDIR and DOCKER_HOST, plus `extra`. Nothing else leaks
 * in (no tokens, no npm settings); the update notifiers some Node tools have are switched off.
 */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: [dirname(process.execPath), process.env.PATH ?? ''].filter((p) => p !== '').join(':'),
    NO_UPDATE_NOTIFIER: '1',
    NPM_CONFIG_UPDATE_NOTIFIER: 'false',
    NO_COLOR: '1',
  };
  for (const key of ['HOME', 'TMPDIR', 'DOCKER_HOST', 'SANDPIT_CHANNEL'] as const) {
    const value = process.env[key];
    if (value) env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * Runs `command args` in its own process group, collecting stdout and stderr; never rejects for a non-zero
 * exit (the caller asserts on `code`). On timeout the whole group (the CLI and whatever it spawned) is
 * stopped.
 */
export function runCli(command: string, args: readonly string[], options: CliOptions): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const signalGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup('SIGTERM');
      killTimer = setTimeout(() => signalGroup('SIGKILL'), KILL_GRACE_MS);
    }, options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      resolve({ code, signal, stdout, stderr, timedOut, durationMs: Date.now() - started });
    });
  });
}
