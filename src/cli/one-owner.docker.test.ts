import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { homeLockPath } from '../core/home-lock';
import { pollUntil } from '../core/util/with-timeout';
import { tempHome } from '../test-support/docker';
import type { TempHome } from '../test-support/docker';

// One data folder, one Sandpit (issue 20, finding 5): real `sandpit` processes on one throwaway data folder.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'sandpit.mjs');
const CALL_TIMEOUT_MS = 90_000;

function childEnv(home: string): Record<string, string> {
  const env: Record<string, string> = { SANDPIT_HOME: home, SANDPIT_LOG: 'info', SANDPIT_FROM_SOURCE: '1' };
  for (const key of ['PATH', 'HOME', 'DOCKER_HOST', 'SANDPIT_CHANNEL', 'TMPDIR', 'SANDPIT_BASE_SOURCE'])
    if (process.env[key]) env[key] = process.env[key];
  return env;
}

interface Mcp {
  client: Client;
  pid: number;
  stderr: () => string;
}

/** `node bin/sandpit.mjs mcp`, as an assistant starts it, with an SDK stdio client on it. */
async function startMcp(home: string, name: string): Promise<Mcp> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: ROOT, env: childEnv(home), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport, { timeout: 60_000 });
  return { client, pid: transport.pid ?? 0, stderr: () => stderr };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

async function run(client: Client, code: string, sessionId?: string): Promise<{ session_id: string; status: string; result?: string }> {
  const result = await call(client, 'execute_code', { code, ...(sessionId ? { session_id: sessionId } : {}) });
  expect(result.isError ?? false, text(result)).toBe(false);
  return result.structuredContent as { session_id: string; status: string; result?: string };
}

/** `node bin/sandpit.mjs serve --port 0`, resolved once it says where it runs (or when it exits first). */
function startServe(home: string): Promise<{ child: ChildProcess; url?: string; code?: number | null; output: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { cwd: ROOT, env: childEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandpit serve did not start in time:\n${output}`)), 60_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const url = /Sandpit is running at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ child, code, output: () => output });
    });
  });
}

describe('one data folder, one Sandpit', () => {
  let home: TempHome;
  const clients: Client[] = [];
  const children: ChildProcess[] = [];

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
    await home?.cleanup();
  });

  it('a second `sandpit mcp` on the same data folder refuses, naming the first; the first keeps its session and variables', async () => {
    home = tempHome();
    const first = await startMcp(home.dir, 'first-assistant');
    clients.push(first.client);
    const created = await call(first.client, 'create_session', { keep: true });
    expect(created.isError ?? false, text(created)).toBe(false);
    const sessionId = (created.structuredContent as { session_id: string }).session_id;
    const made = await run(first.client, 'x = 41\nx', sessionId);
    expect(made.result).toBe('41');

    const second = await startMcp(home.dir, 'second-assistant');
    clients.push(second.client);
    const listed = await call(second.client, 'list_sessions', {});
    expect(listed.isError).toBe(true);
    expect(text(listed)).toContain(`process ${first.pid}`);
    expect(text(listed)).toContain('sandpit mcp');
    const tried = await call(second.client, 'execute_code', { code: 'x = 0', session_id: made.session_id });
    expect(tried.isError).toBe(true);
    expect(text(tried)).toContain('Another Sandpit already uses the data folder');

    // The first's sandbox was never restarted under it: its variable is still there.
    expect((await run(first.client, 'x + 1', made.session_id)).result).toBe('42');
  });

  it('a Sandpit killed with SIGKILL leaves a lock that does not block the next start', async () => {
    home = tempHome();
    const first = await startMcp(home.dir, 'killed-assistant');
    clients.push(first.client);
    expect((await run(first.client, '1 + 1')).result).toBe('2');
    expect(existsSync(homeLockPath(home.dir))).toBe(true);
    process.kill(first.pid, 'SIGKILL');
    await pollUntil(
      () => {
        try {
          process.kill(first.pid, 0);
          return undefined;
        } catch {
          return true;
        }
      },
      10_000,
      'the first sandpit mcp to be gone',
    );
    expect(existsSync(homeLockPath(home.dir))).toBe(true);

    const next = await startMcp(home.dir, 'next-assistant');
    clients.push(next.client);
    expect((await run(next.client, '2 + 3')).result).toBe('5');
  });

  it('a `sandpit mcp` started while the previous one shuts down (an assistant restarting it) waits for it, then hosts', async () => {
    home = tempHome();
    const first = await startMcp(home.dir, 'restarting-assistant');
    expect((await run(first.client, '"first"')).result).toBe("'first'");
    const closing = first.client.close();
    const next = await startMcp(home.dir, 'restarted-assistant');
    clients.push(next.client);
    await closing;
    expect((await run(next.client, '"second"')).result).toBe("'second'");
    expect(next.stderr()).not.toContain('Another Sandpit already uses');
  });

  it('`sandpit mcp` bridges to a running `sandpit serve`; a `sandpit serve` after a `sandpit mcp` refuses to start, naming it', async () => {
    home = tempHome();
    const served = await startServe(home.dir);
    children.push(served.child);
    expect(served.url, served.output()).toBeDefined();
    const bridged = await startMcp(home.dir, 'bridged-assistant');
    clients.push(bridged.client);
    expect((await run(bridged.client, '6 * 7')).result).toBe('42');
    expect(bridged.stderr()).toContain('bridging stdio to the running Sandpit');
    await bridged.client.close();
    served.child.kill('SIGTERM');
    await pollUntil(() => (served.child.exitCode === null && served.child.signalCode === null ? undefined : true), 30_000, 'sandpit serve to stop');

    const host = await startMcp(home.dir, 'hosting-assistant');
    clients.push(host.client);
    expect((await run(host.client, '"hosted"')).result).toBe("'hosted'");
    const refused = await startServe(home.dir);
    children.push(refused.child);
    expect(refused.url).toBeUndefined();
    expect(refused.code).not.toBe(0);
    expect(refused.output()).toContain(`process ${host.pid}`);
    expect(refused.output()).toContain('sandpit mcp');
  });
});
