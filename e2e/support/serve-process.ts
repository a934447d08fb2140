/**
 * A real headless Sandpit (`node bin/sandpit.mjs serve --port 0`) in a child process: started with its own
 * data folder, its address and token read from the lines it prints, stopped with SIGTERM (SIGKILL after a
 * grace period). Shared by the e2e global setup and the panel benchmark.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cliEnv } from '../../src/test-support/run-cli';
import type { ServerInfo } from './server-info';

export const REPO_ROOT = resolve(__dirname, '..', '..');

/**
 * Package indexes no one can reach without leaving the machine: a build's pip (in its own container) gets
 * "connection refused" at once, so nothing is ever fetched from the internet.
 */
export const UNREACHABLE_PIP_INDEX = 'http://127.0.0.1:9/simple';
export const UNREACHABLE_NPM_REGISTRY = 'http://127.0.0.1:9/';

export interface ServeOptions {
  /** Its SANDPIT_HOME (made by the caller; an empty folder gives a fresh token and audit log). */
  home: string;
  /** The image of Python sessions (SANDPIT_PYTHON_IMAGE), e.g. the python-data executor image. */
  pythonImage: string;
  /** Where its stdout and stderr (JSON log lines) go. */
  logFile: string;
  /** More environment variables for the child. */
  env?: Record<string, string>;
  /** The port to serve on (default 0: any free one). A restart on the same data folder and port keeps the panel link. */
  port?: number;
  startTimeoutMs?: number;
}

export interface ServeProcess {
  info: ServerInfo;
  /** SIGTERM, up to `graceMs` for a clean shutdown, then SIGKILL. Resolves once the process is gone. */
  stop(graceMs?: number): Promise<{ clean: boolean }>;
}

const RUNNING = /^Sandpit is running at (http:\/\/\S+)\s*$/m;
const PANEL = /web panel:\s+(http:\/\/\S+?)\/?#token=([A-Za-z0-9_-]+)/;
const TOKEN_FILE = /token file:\s+(\S+)/;

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolveExit) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolveExit(false);
    }, ms);
    const onExit = (): void => {
      clearTimeout(timer);
      resolveExit(true);
    };
    child.once('exit', onExit);
  });
}

export async function startServe(options: ServeOptions): Promise<ServeProcess> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'sandpit.mjs'), 'serve', '--port', String(options.port ?? 0)], {
    cwd: REPO_ROOT,
    env: cliEnv({
      SANDPIT_HOME: options.home,
      SANDPIT_EGRESS_PROXY: 'off',
      SANDPIT_PYTHON_IMAGE: options.pythonImage,
      SANDPIT_PIP_INDEX_URL: UNREACHABLE_PIP_INDEX,
      SANDPIT_NPM_REGISTRY_URL: UNREACHABLE_NPM_REGISTRY,
      SANDPIT_LOG: 'info',
      ...options.env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(options.logFile, { flags: 'a' });
  child.stderr?.pipe(log);
  let printed = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    printed += chunk;
    log.write(chunk);
  });

  const stop = async (graceMs = 30_000): Promise<{ clean: boolean }> => {
    if (exited(child)) return { clean: child.exitCode === 0 };
    child.kill('SIGTERM');
    if (await waitForExit(child, graceMs)) return { clean: child.exitCode === 0 };
    child.kill('SIGKILL');
    await waitForExit(child, 10_000);
    return { clean: false };
  };

  const timeoutMs = options.startTimeoutMs ?? 90_000;
  const info = await new Promise<ServerInfo>((resolveInfo, reject) => {
    const timer = setTimeout(() => done(new Error(`sandpit serve printed no address within ${timeoutMs} ms (see ${options.logFile})`)), timeoutMs);
    const check = (): void => {
      const running = RUNNING.exec(printed);
      const panel = PANEL.exec(printed);
      const tokenFile = TOKEN_FILE.exec(printed);
      if (!running?.[1] || !panel?.[2] || !tokenFile?.[1] || child.pid === undefined) return;
      let token: string;
      try {
        token = readFileSync(tokenFile[1], 'utf8').trim();
      } catch (error) {
        done(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      done(undefined, { url: running[1], token, panelToken: panel[2], home: options.home, pid: child.pid, pythonImage: options.pythonImage });
    };
    const onExit = (code: number | null, signal: string | null): void =>
      done(new Error(`sandpit serve exited (${signal ?? `code ${code}`}) before it was ready (see ${options.logFile})`));
    function done(error?: Error, value?: ServerInfo): void {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.off('exit', onExit);
      if (error) reject(error);
      else if (value) resolveInfo(value);
    }
    child.stdout?.on('data', check);
    child.once('exit', onExit);
    child.once('error', (error) => done(error));
  }).catch(async (error: unknown) => {
    await stop(5_000);
    throw error;
  });
  return { info, stop };
}
