import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../core/util/with-timeout';
import { tempHome } from '../test-support/docker';
import type { TempHome } from '../test-support/docker';

// The bridge survives a restart (issue 23): a real `sandpit mcp` bridging to a real `sandpit serve` on one
// throwaway data folder, with the SDK's stdio client calling all along while the serve process is stopped and
// started again (on another port: the bridge finds it through the data folder).
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'sandpit.mjs');

function childEnv(home: string): Record<string, string> {
  const env: Record<string, string> = { SANDPIT_HOME: home, SANDPIT_LOG: 'info', SANDPIT_FROM_SOURCE: '1' };
  for (const key of ['PATH', 'HOME', 'DOCKER_HOST', 'SANDPIT_CHANNEL', 'TMPDIR', 'SANDPIT_BASE_SOURCE'])
    if (process.env[key]) env[key] = process.env[key];
  return env;
}

interface Served {
  child: ChildProcess;
  url: string;
}

/** `node bin/sandpit.mjs serve --port 0`, resolved once it says where it runs. */
function startServe(home: string): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { cwd: ROOT, env: childEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandpit serve did not start in time:\n${output}`)), 60_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const url = /Sandpit is running at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandpit serve exited (${code}):\n${output}`));
    });
  });
}

async function stopServe(served: Served): Promise<void> {
  served.child.kill('SIGTERM');
  await pollUntil(() => (served.child.exitCode === null && served.child.signalCode === null ? undefined : true), 30_000, 'sandpit serve to stop', 50);
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

describe('sandpit mcp bridging across a restart of sandpit serve', () => {
  let home: TempHome;
  let client: Client | undefined;
  const children: ChildProcess[] = [];

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await pollUntil(() => (children.every((c) => c.exitCode !== null || c.signalCode !== null) ? true : undefined), 30_000, 'the serve processes to stop', 50).catch(() => undefined);
    await home?.cleanup();
  });

  it('keeps answering its client: the run in flight ends with a clear error, a client calling all along sees at most one failed call', async () => {
    home = tempHome();
    const first = await startServe(home.dir);
    children.push(first.child);
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: ROOT, env: childEnv(home.dir), stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    client = new Client({ name: 'restart-test', version: '1.0.0' });
    await client.connect(transport, { timeout: 60_000 });
    const mcp = client;
    const warm = (await mcp.callTool({ name: 'execute_code', arguments: { code: '6 * 7' } }, undefined, { timeout: 90_000 })) as CallToolResult;
    expect(warm.structuredContent, text(warm)).toMatchObject({ status: 'ok', result: '42' });
    expect(stderr).toContain('bridging stdio to the running Sandpit');

    // A client that keeps calling, one call after another, all through the restart.
    const outcomes: string[] = []; // 'ok', or what failed
    const calls: Array<{ start: number; end: number; ok: boolean }> = [];
    let calling = true;
    const keepCalling = (async () => {
      while (calling) {
        const start = Date.now();
        const count = outcomes.length;
        try {
          const listed = (await mcp.callTool({ name: 'list_sessions', arguments: {} }, undefined, { timeout: 60_000 })) as CallToolResult;
          outcomes.push(listed.isError ? `isError: ${text(listed)}` : 'ok');
        } catch (error) {
          outcomes.push(error instanceof Error ? error.message : String(error));
        }
        calls.push({ start, end: Date.now(), ok: outcomes.length > count && outcomes[count] === 'ok' });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    // A run in flight when the instance goes away.
    const inFlight = mcp
      .callTool({ name: 'execute_code', arguments: { code: 'import time\nprint("long", flush=True)\ntime.sleep(60)' } }, undefined, { timeout: 90_000 })
      .then(
        () => new Error('the run in flight was answered as if nothing happened'),
        (error: unknown) => error,
      );
    await pollUntil(() => (outcomes.filter((o) => o === 'ok').length >= 3 ? true : undefined), 30_000, 'calls before the restart', 50);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const before = outcomes.length;
    await stopServe(first);
    const stoppedAt = Date.now();
    expect(String(await inFlight)).toMatch(/closed the connection before answering: it stopped or is restarting, so this call did not finish/);

    const second = await startServe(home.dir);
    const backAt = Date.now();
    children.push(second.child);
    expect(second.url).not.toBe(first.url);
    await pollUntil(() => (outcomes.slice(before).filter((o) => o === 'ok').length >= 5 ? true : undefined), 60_000, 'calls after the restart to succeed', 50);
    calling = false;
    await keepCalling;
    const failed = outcomes.filter((o) => o !== 'ok');
    expect(failed.length, failed.join('\n')).toBeLessThanOrEqual(1);
    // The client did call while the instance was away, and that call was answered once it was back.
    expect(calls.some((c) => c.start < backAt && c.end > stoppedAt && c.ok)).toBe(true);
    expect(stderr).toContain('reconnected to the running Sandpit');

    // The new instance runs code for the same client, through the same bridge process.
    const after = (await mcp.callTool({ name: 'execute_code', arguments: { code: '"after the restart"' } }, undefined, { timeout: 90_000 })) as CallToolResult;
    expect(after.structuredContent, text(after)).toMatchObject({ status: 'ok', result: "'after the restart'" });
  });
});
