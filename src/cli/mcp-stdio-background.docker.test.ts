import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpHttpMount } from '../core/mcp/http-mount';
import type { McpHttpMount } from '../core/mcp/http-mount';
import { serveHttp } from '../core/http/serve-http';
import type { ServedHttp } from '../core/http/serve-http';
import { pollUntil } from '../core/util/with-timeout';
import { startTestSandpit } from '../test-support/sandpit';
import type { TestSandpit } from '../test-support/sandpit';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MCP_ARGS = ['--import', 'tsx', join(ROOT, 'src/cli/index.ts'), 'mcp'];

/** `sandpit mcp` from the sources, as a desktop assistant starts it, bridging to the Sandpit of `home`. */
async function spawnSandpitMcp(home: string, name: string): Promise<Client> {
  const env: Record<string, string> = { SANDPIT_HOME: home, SANDPIT_LOG: 'info' };
  for (const key of ['PATH', 'HOME', 'DOCKER_HOST', 'SANDPIT_CHANNEL', 'TMPDIR']) if (process.env[key]) env[key] = process.env[key];
  const transport = new StdioClientTransport({ command: process.execPath, args: MCP_ARGS, cwd: ROOT, env, stderr: 'pipe' });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport, { timeout: 60_000 });
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000 })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

describe('background runs through sandpit mcp (stdio) bridging to a running Sandpit', () => {
  let sp: TestSandpit;
  let mount: McpHttpMount;
  let served: ServedHttp;
  const clients: Client[] = [];

  beforeAll(async () => {
    sp = await startTestSandpit();
    mount = createMcpHttpMount(sp);
    served = await serveHttp(sp, 0, [mount.route]);
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await served?.close();
    await mount?.close();
    await sp?.cleanup();
  });

  it('a run started before `sandpit mcp` restarted is fetched by the same assistant afterwards; another assistant is refused', async () => {
    const first = await spawnSandpitMcp(sp.config.home, 'stdio-bg-assistant');
    clients.push(first);
    const started = await call(first, 'execute_code', { code: 'import time\nprint("begun", flush=True)\ntime.sleep(8)\nprint("end")\n21 * 2', background: true });
    expect(started.isError ?? false, textOf(started)).toBe(false);
    const runId = (started.structuredContent as { run_id: string }).run_id;
    const early = (await call(first, 'get_run', { run_id: runId, wait_seconds: 20 })).structuredContent as { output: string; cursor: number };
    expect(early.output).toBe('begun\n');

    // The assistant quits (its `sandpit mcp` ends); it is started again.
    await first.close();
    const again = await spawnSandpitMcp(sp.config.home, 'stdio-bg-assistant');
    clients.push(again);
    const done = await pollUntil(
      async () => {
        const r = (await call(again, 'get_run', { run_id: runId, since: early.cursor, wait_seconds: 10 })).structuredContent as {
          state: string;
          result?: { status: string; stdout: string; result?: string };
        };
        return r.state === 'done' ? r : undefined;
      },
      60_000,
      'the run to end',
    );
    expect(done.result).toMatchObject({ status: 'ok', stdout: 'begun\nend\n', result: '42' });

    // Attack: another assistant bridged the same way (same token) gets nothing.
    const other = await spawnSandpitMcp(sp.config.home, 'stdio-other-assistant');
    clients.push(other);
    const refused = await call(other, 'get_run', { run_id: runId });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain(`NOT_FOUND: No background run ${runId} of yours`);
  }, 180_000);
});
