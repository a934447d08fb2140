import { randomBytes } from 'node:crypto';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { toErrorBody } from '../shared/api/errors';
import type { CheckResult } from '../core/check-result';
import { isLooserThanOwnerOnly, tokenPath } from '../core/connect/token';
import { readHomeHolder } from '../core/home-lock';
import { isProcessAlive, readInstanceFile } from '../core/instance-file';

export function checkNode(version: string = process.versions.node): CheckResult {
  const major = Number(version.split('.')[0]);
  return major >= 24
    ? { name: 'Node.js', ok: true, detail: `v${version}` }
    : { name: 'Node.js', ok: false, detail: `v${version} is too old`, fix: 'Install Node.js 24 or newer (see .nvmrc).' };
}

export async function checkDataFolder(home: string): Promise<CheckResult> {
  try {
    await mkdir(home, { recursive: true, mode: 0o700 });
    const probe = join(home, `.doctor-${randomBytes(4).toString('hex')}`);
    await writeFile(probe, 'ok', { mode: 0o600 });
    await rm(probe);
    return { name: 'Data folder', ok: true, detail: home };
  } catch (error) {
    return { name: 'Data folder', ok: false, detail: `${home}: ${toErrorBody(error).message}`, fix: 'Set SANDPIT_HOME to a folder you can write to.' };
  }
}

/** Tries to listen on host:port: undefined when it could, else the error code (EADDRINUSE, EACCES …). */
export function tryListen(port: number, host = '127.0.0.1'): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** Asks http://127.0.0.1:port/health whether a Sandpit answers there; its version when it does. */
export async function probeSandpitHealth(port: number, timeoutMs = 2_000): Promise<{ version: string; engine: string } | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await response.json()) as { ok?: unknown; engine?: unknown; version?: unknown };
    if (response.ok && body.ok === true && typeof body.engine === 'string' && typeof body.version === 'string') return { version: body.version, engine: body.engine };
  } catch {
    // Not an HTTP server, not ours, or too slow: not a healthy Sandpit.
  }
  return undefined;
}

/** The Sandpit that holds this data folder (its owner.lock names a live process on this computer), if one does. */
export interface RunningSandpit {
  pid: number;
  command: string;
  startedAt: string;
  /** Where it serves, when its instance.json is its own. */
  url?: string;
}

export async function findDataFolderOwner(home: string): Promise<RunningSandpit | undefined> {
  const holder = await readHomeHolder(home);
  if (!holder || holder.host !== hostname() || !isProcessAlive(holder.pid)) return undefined;
  const served = await readInstanceFile(home);
  return { pid: holder.pid, command: holder.command, startedAt: holder.startedAt, ...(served && served.pid === holder.pid ? { url: served.url } : {}) };
}

/** The Sandpit already running on this data folder, by its process, command and address (none is fine too). */
export function checkRunningSandpit(home: string, running: RunningSandpit | undefined): CheckResult {
  const name = 'Running Sandpit';
  if (!running) return { name, ok: true, detail: `none runs on the data folder ${home}` };
  const where = running.url ? `, serving ${running.url}` : ', not serving HTTP';
  return { name, ok: true, detail: `process ${running.pid} (${running.command}${where}), started ${running.startedAt}, uses the data folder ${home}; "sandpit mcp" connects to it` };
}

/** The HTTP port is free, or a healthy Sandpit already serves on it; a free port says where the running Sandpit serves instead. */
export async function checkPort(port: number, probe: typeof probeSandpitHealth = probeSandpitHealth, running?: RunningSandpit): Promise<CheckResult> {
  const name = 'HTTP port';
  const failure = await tryListen(port);
  if (failure === undefined) {
    const elsewhere = running ? ` (the running Sandpit, process ${running.pid}, ${running.url ? `serves ${running.url}` : 'does not serve HTTP'})` : '';
    return { name, ok: true, detail: `127.0.0.1:${port} is free${elsewhere}` };
  }
  if (failure === 'EADDRINUSE') {
    const sandpit = await probe(port);
    if (sandpit) return { name, ok: true, detail: `127.0.0.1:${port} is used by a running Sandpit ${sandpit.version} (Docker ${sandpit.engine})` };
    return { name, ok: false, detail: `127.0.0.1:${port} is used by another program`, fix: `Stop the program that uses port ${port}, or start Sandpit on another port: sandpit serve --port <N>.` };
  }
  return { name, ok: false, detail: `cannot listen on 127.0.0.1:${port}: ${failure}`, fix: `Start Sandpit on another port: sandpit serve --port <N>.` };
}

/** The access token file: absent (made on first start) or readable by its owner only. */
export async function checkTokenFile(home: string, platform: NodeJS.Platform = process.platform): Promise<CheckResult> {
  const name = 'Access token';
  const path = tokenPath(home);
  try {
    const info = await stat(path);
    if (!info.isFile()) return { name, ok: false, detail: `${path} is not a file`, fix: `Remove ${path}; Sandpit makes a new token on its next start.` };
    if (isLooserThanOwnerOnly(info.mode, platform)) {
      return { name, ok: false, detail: `${path} can be read by other users (mode ${(info.mode & 0o777).toString(8)})`, fix: `chmod 600 ${path}` };
    }
    return { name, ok: true, detail: `${path} (owner only)` };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { name, ok: true, detail: `${path} will be created on first start` };
    return { name, ok: false, detail: `${path}: ${toErrorBody(error).message}`, fix: 'Check the permissions of the data folder (SANDPIT_HOME).' };
  }
}

export function formatChecks(results: CheckResult[]): string {
  return results
    .map((r) => (r.ok ? `✓ ${r.name}: ${r.detail}` : `✗ ${r.name}: ${r.detail}${r.fix ? `\n    → ${r.fix}` : ''}`))
    .join('\n');
}
