import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL } from '../core/docker/labels';
import { createMcpHttpMount } from '../core/mcp/http-mount';
import type { McpHttpMount } from '../core/mcp/http-mount';
import { pollUntil } from '../core/util/with-timeout';
import { containersNotHandedOver, handedOver, tempHome, testDocker } from '../test-support/docker';
import type { TempHome } from '../test-support/docker';
import { startTestSandpit } from '../test-support/sandpit';
import type { TestSandpit } from '../test-support/sandpit';
import { serveHttp } from '../core/http/serve-http';
import type { ServedHttp } from '../core/http/serve-http';
import { TOOLS } from '../core/mcp/tools';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const JSON_RPC_LOOKALIKE = '{"jsonrpc":"2.0","id":99,"result":{}}';

interface Spawned {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
}

function childEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { SANDPIT_HOME: home, SANDPIT_LOG: 'info', ...extra };
  for (const key of ['PATH', 'HOME', 'DOCKER_HOST', 'SANDPIT_CHANNEL', 'TMPDIR'])
    if (process.env[key]) env[key] = process.env[key];
  return env;
}

const MCP_ARGS = ['--import', 'tsx', join(ROOT, 'src/cli/index.ts'), 'mcp'];

/** `sandpit mcp` from the sources, as a desktop assistant starts it, with SANDPIT_HOME = `home`. */
async function spawnSandpitMcp(home: string, name: string, extra: Record<string, string> = {}): Promise<Spawned> {
  const env = childEnv(home, extra);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: MCP_ARGS,
    cwd: ROOT,
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport, { timeout: 60_000 });
  return { client, transport, stderr: () => stderr };
}

async function execute(
  client: Client,
  code: string,
  onprogress?: (p: Progress) => void,
): Promise<{ session_id: string; status: string; stdout: string; result?: string }> {
  const result = (await client.callTool({ name: 'execute_code', arguments: { code } }, undefined, {
    timeout: 60_000,
    ...(onprogress ? { onprogress } : {}),
  })) as CallToolResult;
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  return result.structuredContent as { session_id: string; status: string; stdout: string; result?: string };
}

describe('sandpit mcp hosting the core itself', () => {
  let home: TempHome;
  let spawned: Spawned | undefined;

  beforeAll(() => {
    home = tempHome();
  });
  afterAll(async () => {
    await spawned?.client.close().catch(() => undefined);
    await home?.cleanup();
  });

  it('lists the tools and runs code; printed JSON-RPC look-alikes cannot break the framing; closing stdin removes its sessions and leaves its warm sandboxes to the next sandpit mcp, which answers from one of them', async () => {
    spawned = await spawnSandpitMcp(home.dir, 'stdio-host-test');
    const { client, transport } = spawned;
    const pid = transport.pid;
    expect(pid).toBeGreaterThan(0);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(TOOLS.length);
    expect(client.getServerVersion()?.name).toBe('sandpit');

    const out = await execute(
      client,
      `print('${JSON_RPC_LOOKALIKE}')\nprint('${JSON_RPC_LOOKALIKE}', flush=True)\n6 * 7`,
    );
    expect(out).toMatchObject({ status: 'ok', result: '42', stdout: `${JSON_RPC_LOOKALIKE}\n${JSON_RPC_LOOKALIKE}\n` });
    expect((await execute(client, 'print("still framed")')).stdout).toBe('still framed\n');

    expect((await execute(client, 'kept_value = 42\nkept_value')).result).toBe('42');
    const docker = testDocker();
    const running = async (ownerPid: number): Promise<number> => (await docker.listContainers({ [LABEL.ownerPid]: String(ownerPid) })).filter((c) => c.state === 'running').length;
    // the session and the warm sandboxes (the python one refilled, the other languages' first ones)
    await pollUntil(async () => ((await running(pid!)) >= 4 ? true : undefined), 90_000, 'the warm pools to fill', 250);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const { stderr } = spawned;
    await client.close();
    spawned = undefined;
    expect(stderr()).toContain('MCP client gone; shutting down');
    // Its session is removed; its ready warm sandboxes stay, named in the data folder for the next sandpit mcp.
    await pollUntil(async () => ((await containersNotHandedOver(pid!, home.dir)) === 0 ? true : undefined), 30_000, 'the session containers of sandpit mcp to be removed', 250);
    const left = await handedOver(home.dir);
    expect(left.length).toBeGreaterThan(0);
    expect(left).not.toContain(out.session_id);
    expect(stderr()).toContain('left warm sandboxes for the next core');

    // The next sandpit mcp of this data folder answers its first call from one of them, with nothing of the last
    // session in it; told to leave nothing itself, it removes every one it took over when it quits.
    const second = await spawnSandpitMcp(home.dir, 'stdio-host-test-2', { SANDPIT_HANDOVER_SECONDS: '0' });
    spawned = second;
    const pid2 = second.transport.pid!;
    const fresh = await execute(second.client, "'kept_value' in globals()");
    expect(fresh.result).toBe('False');
    expect(left).toContain(fresh.session_id);
    expect(await handedOver(home.dir)).toEqual([]);
    await second.client.close();
    spawned = undefined;
    expect(second.stderr()).toContain('took over the warm sandboxes the last core left');
    await pollUntil(
      async () => ((await docker.listContainers({ [LABEL.ownerPid]: String(pid) })).length + (await docker.listContainers({ [LABEL.ownerPid]: String(pid2) })).length === 0 ? true : undefined),
      30_000,
      'every container of both to be removed',
      250,
    );
    expect(await handedOver(home.dir)).toEqual([]);
  });
});

describe('sandpit mcp bridging to a running Sandpit', () => {
  let sp: TestSandpit;
  let mount: McpHttpMount;
  let served: ServedHttp;
  let spawned: Spawned | undefined;

  beforeAll(async () => {
    sp = await startTestSandpit();
    mount = createMcpHttpMount(sp);
    served = await serveHttp(sp, 0, [mount.route]);
  });
  afterAll(async () => {
    await spawned?.client.close().catch(() => undefined);
    await served?.close();
    await mount?.close();
    await sp?.cleanup();
  });

  it('forwards to the instance of the same SANDPIT_HOME: the run happens there, and ending stdio ends its sessions', async () => {
    const started: string[] = [];
    const off = sp.bus.on('execution.started', (e) => started.push(e.sessionId));
    spawned = await spawnSandpitMcp(sp.config.home, 'stdio-bridge-test');
    const { client } = spawned;
    expect((await client.listTools()).tools).toHaveLength(TOOLS.length);

    const seen: Progress[] = [];
    const out = await execute(client, 'import time\nprint("via bridge", flush=True)\ntime.sleep(2.5)\n"done"', (p) =>
      seen.push(p),
    );
    off();
    expect(out).toMatchObject({ status: 'ok', stdout: 'via bridge\n', result: "'done'" });
    expect(started).toContain(out.session_id);
    const session = sp.sessions.list().find((s) => s.id === out.session_id);
    expect(session?.client).toBe('stdio-bridge-test');
    expect(mount.sessionCount()).toBe(1);
    expect(seen.some((p) => p.message === 'via bridge')).toBe(true);
    expect(spawned.stderr()).toContain('bridging stdio to the running Sandpit');
    // The client connected over stdio: its run and its row in Connect say stdio, not the bridge's HTTP.
    const row = JSON.parse(sp.audit.export('jsonl', { filters: { sessionId: out.session_id } }, 10).content.split('\n')[0] ?? '{}') as { transport?: string; client?: string };
    expect(row).toMatchObject({ transport: 'mcp-stdio', client: 'stdio-bridge-test' });
    expect(sp.clients.list().find((c) => c.name === 'stdio-bridge-test')?.transport).toBe('mcp-stdio');

    // A cancel travels through the bridge and interrupts the run in the instance; the session stays.
    const ended: string[] = [];
    const offDone = sp.bus.on('execution.done', (e) => {
      if (e.sessionId === out.session_id) ended.push(e.status);
    });
    const controller = new AbortController();
    const printed = new Promise<void>((resolve) => {
      const offOutput = sp.bus.on('execution.output', (e) => {
        if (e.sessionId !== out.session_id) return;
        offOutput();
        resolve();
      });
    });
    const pending = client.callTool(
      {
        name: 'execute_code',
        arguments: { code: 'import time\nprint("spin", flush=True)\nwhile True: time.sleep(0.1)' },
      },
      undefined,
      {
        signal: controller.signal,
      },
    );
    await printed;
    controller.abort();
    await expect(pending).rejects.toThrow();
    await pollUntil(() => (ended.length > 0 ? true : undefined), 15_000, 'the cancelled run to end');
    offDone();
    expect(ended).toEqual(['interrupted']);
    expect((await execute(client, '"after"')).result).toBe("'after'");

    await client.close();
    spawned = undefined;
    await pollUntil(
      () => (sp.sessions.list().some((s) => s.id === out.session_id) ? undefined : true),
      15_000,
      'the bridged session to stop',
    );
    expect(mount.sessionCount()).toBe(0);
  });

  it('holds messages a client pipelines after initialize until the MCP session exists', async () => {
    const child = spawn(process.execPath, MCP_ARGS, {
      cwd: ROOT,
      env: childEnv(sp.config.home),
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    child.stdin.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
    await pollUntil(() => (stdout.includes('"id":2') ? true : undefined), 30_000, 'the tools/list answer', 50);
    child.stdin.end();
    await once(child, 'exit');
    const answers = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result?: { tools?: unknown[] }; error?: unknown });
    expect(answers.map((a) => a.id)).toEqual([1, 2]);
    expect(answers[1]?.error).toBeUndefined();
    expect(answers[1]?.result?.tools).toHaveLength(TOOLS.length);
  });
});
