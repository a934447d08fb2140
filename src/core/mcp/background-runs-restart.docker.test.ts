import { rm } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { generateToken } from '../connect/token';
import { startHttpServer } from '../http/http-server';
import type { RunningHttpServer } from '../http/http-server';
import { createMcpHttpMount } from './http-mount';
import type { McpHttpMount } from './http-mount';

interface Served { sp: TestSandpit; mount: McpHttpMount; http: RunningHttpServer }

async function serve(token: string, home?: string): Promise<Served> {
  const sp = await startTestSandpit(home === undefined ? {} : { home });
  const mount = createMcpHttpMount(sp);
  const http = await startHttpServer({ sandpit: sp, port: 0, token, mounts: [mount.route] });
  return { sp, mount, http };
}

async function connect(served: Served, token: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.http.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000 })) as CallToolResult;
const textOf = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('background runs across a restart of Sandpit, with real SDK clients over Streamable HTTP', () => {
  const token = generateToken();
  let home: string | undefined;
  const toClose: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of toClose.reverse()) await close().catch(() => undefined);
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('after a restart its client gets a finished run\'s result and "Stopped: Sandpit quit." for one that was running; another client gets neither', async () => {
    const first = await serve(token);
    home = first.sp.config.home;
    const alice = await connect(first, token, 'restart-alice');
    const done = (await call(alice, 'execute_code', { code: 'print("kept across")\n6 * 7', background: true })).structuredContent as { run_id: string };
    // wait_seconds wakes on new output as well as on the end: asked again until it is done.
    await expect.poll(async () => ((await call(alice, 'get_run', { run_id: done.run_id, wait_seconds: 5 })).structuredContent as { state: string }).state, { timeout: 60_000 }).toBe('done');
    const long = (await call(alice, 'execute_code', { code: 'import time\ntime.sleep(120)', background: true })).structuredContent as { run_id: string };
    await expect.poll(async () => ((await call(alice, 'get_run', { run_id: long.run_id })).structuredContent as { state: string }).state, { timeout: 30_000 }).toBe('running');
    await alice.close();
    await first.http.close();
    await first.mount.close();
    await first.sp.dispose();

    const second = await serve(token, home);
    toClose.push(() => second.sp.dispose(), () => second.mount.close(), () => second.http.close());
    const again = await connect(second, token, 'restart-alice');
    toClose.push(() => again.close());
    const back = await call(again, 'get_run', { run_id: done.run_id });
    expect(back.isError ?? false).toBe(false);
    expect((back.structuredContent as { result?: { stdout: string; result?: string } }).result).toMatchObject({ stdout: 'kept across\n', result: '42' });
    const stopped = await call(again, 'get_run', { run_id: long.run_id });
    expect(textOf(stopped)).toContain('Stopped: Sandpit quit.');
    const other = await connect(second, token, 'restart-mallory');
    toClose.push(() => other.close());
    const refused = await call(other, 'get_run', { run_id: done.run_id });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain(`No background run ${done.run_id} of yours`);
  }, 240_000);
});
