import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LABEL } from '../core/docker/labels';
import { createMcpHttpMount } from '../core/mcp/http-mount';
import type { McpHttpMount } from '../core/mcp/http-mount';
import { MCP_MAX_MESSAGE_BYTES, TOOL_INPUT_LIMITS } from '../core/mcp/mcp-limits';
import { serveHttp } from '../core/http/serve-http';
import type { ServedHttp } from '../core/http/serve-http';
import { pollUntil } from '../core/util/with-timeout';
import { containersNotHandedOver, tempHome, testDocker } from '../test-support/docker';
import type { TempHome } from '../test-support/docker';
import { mcpChildEnv, RawMcpStdio, REPO_ROOT, SANDPIT_MCP_ARGS } from '../test-support/raw-mcp-stdio';
import type { RpcLine } from '../test-support/raw-mcp-stdio';
import { startTestSandpit } from '../test-support/sandpit';
import type { TestSandpit } from '../test-support/sandpit';
import { TOOLS } from '../core/mcp/tools';

const MIB = 1024 * 1024;
/** Generous: the process normally exits well within a second or two of stdin closing. */
const EXIT_BOUND_MS = 10_000;
const LONG_RUN = 'import time\nprint("go", flush=True)\ntime.sleep(600)';

/** A tools/call as the SDK's client writes it: method, params, then jsonrpc and the id at the very end. */
function sdkOrderedCall(id: number, name: string, args: Record<string, unknown>): string {
  return `${JSON.stringify({ method: 'tools/call', params: { name, arguments: args }, jsonrpc: '2.0', id })}\n`;
}

/** Starts a run that prints "go" and then sleeps for ten minutes; resolves once it printed. */
async function startLongRun(raw: RawMcpStdio, id: number): Promise<void> {
  await raw.send({
    id,
    method: 'tools/call',
    params: { name: 'execute_code', arguments: { code: LONG_RUN }, _meta: { progressToken: `run-${id}` } },
  });
  await pollUntil(
    () =>
      raw.lines.some((l) => l.method === 'notifications/progress' && l.params?.message === 'go') ? true : undefined,
    60_000,
    'the long run to print',
    50,
  );
}

function expectOversized(answer: RpcLine, bytes: number): void {
  expect(answer.error?.code).toBe(-32600);
  expect(answer.error?.message).toContain(`the message was ${bytes} bytes`);
  expect(answer.error?.message).toContain(`limit of ${MCP_MAX_MESSAGE_BYTES} bytes (10 MiB)`);
  expect(answer.error?.message).toContain('write_file content at most 1,048,576 characters');
}

async function ownContainers(pid: number): Promise<number> {
  return (await testDocker().listContainers({ [LABEL.ownerPid]: String(pid) })).length;
}

describe('sandpit mcp hosting the core: oversized and malformed messages never break the connection', () => {
  let home: TempHome;
  let raw: RawMcpStdio | undefined;
  let client: Client | undefined;

  beforeAll(() => {
    home = tempHome();
  });
  afterEach(async () => {
    await client?.close().catch(() => undefined);
    client = undefined;
    raw?.kill();
    raw = undefined;
  });
  afterAll(async () => {
    await home?.cleanup();
  });

  it('answers a 12 MiB write_file from the SDK client with a clear error, then runs code in the same connection; a write_file at its limit of control characters (6 MiB of JSON) goes through', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: SANDPIT_MCP_ARGS,
      cwd: REPO_ROOT,
      env: mcpChildEnv(home.dir),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    client = new Client({ name: 'stdio-limits-sdk', version: '1.0.0' });
    await client.connect(transport, { timeout: 60_000 });
    const pid = transport.pid ?? -1;

    // The limits are in the schemas and the descriptions a model reads.
    const { tools } = await client.listTools();
    const props = (name: string): Record<string, { maxLength?: number; description?: string }> =>
      tools.find((t) => t.name === name)?.inputSchema.properties ?? {};
    expect(props('write_file').content?.maxLength).toBe(TOOL_INPUT_LIMITS.fileContentChars);
    expect(props('write_file').content?.description).toContain('at most 1,048,576 characters');
    expect(props('execute_code').code?.maxLength).toBe(TOOL_INPUT_LIMITS.codeChars);
    expect(props('execute_code').code?.description).toContain('at most 1,048,576 characters');
    expect(props('run_command').command?.description).toContain('at most 65,536 characters');

    const content = 'x'.repeat(12 * MIB);
    const refused = await client
      .callTool({ name: 'write_file', arguments: { path: 'big.txt', content } }, undefined, { timeout: 60_000 })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32600);
    expect((refused as McpError).message).toMatch(/the message was 125830\d\d bytes/);
    expect((refused as McpError).message).toContain('write_file content at most 1,048,576 characters');

    const ran = (await client.callTool({ name: 'execute_code', arguments: { code: '6 * 7' } }, undefined, {
      timeout: 60_000,
    })) as CallToolResult;
    expect(ran.isError ?? false, JSON.stringify(ran.content)).toBe(false);
    expect(ran.structuredContent).toMatchObject({ status: 'ok', result: '42' });

    // The worst case the limits were chosen for: every character escaped to 6 bytes on the wire.
    const controls = '\u0001'.repeat(TOOL_INPUT_LIMITS.fileContentChars);
    expect(JSON.stringify(controls).length).toBeGreaterThan(6 * MIB);
    const written = (await client.callTool(
      { name: 'write_file', arguments: { path: 'controls.bin', content: controls } },
      undefined,
      { timeout: 60_000 },
    )) as CallToolResult;
    expect(written.isError ?? false, JSON.stringify(written.content)).toBe(false);
    expect(written.structuredContent).toMatchObject({ path: 'controls.bin', size: TOOL_INPUT_LIMITS.fileContentChars });

    // One character over the tool's own limit: the schema refuses it, readably.
    const over = (await client.callTool(
      {
        name: 'write_file',
        arguments: { path: 'over.txt', content: 'y'.repeat(TOOL_INPUT_LIMITS.fileContentChars + 1) },
      },
      undefined,
      { timeout: 60_000 },
    )) as CallToolResult;
    expect(over.isError).toBe(true);
    expect(JSON.stringify(over.content)).toContain('1048576');

    expect(stderr).not.toContain('ReadBuffer exceeded');
    await client.close();
    client = undefined;
    await pollUntil(
      async () => ((await containersNotHandedOver(pid, home.dir)) === 0 ? true : undefined),
      30_000,
      'the containers of sandpit mcp to be removed (but the warm ones it left for the next one)',
      250,
    );
  });

  it('answers garbage with errors (not JSON, not JSON-RPC, 40 MiB without a newline) and every later request; closing stdin mid-run ends the process within seconds, containers removed', async () => {
    raw = new RawMcpStdio(home.dir);
    const init = await raw.initialize();
    expect(init.result?.serverInfo).toMatchObject({ name: 'sandpit' });

    let from = raw.lines.length;
    await raw.write('this is not JSON\n');
    const notJson = await raw.answer(null, 30_000, from);
    expect(notJson.error?.code).toBe(-32700);
    expect(notJson.error?.message).toContain('not JSON');

    from = raw.lines.length;
    await raw.write('{"jsonrpc":"2.0","id":7,"method":42}\n');
    const notRpc = await raw.answer(7, 30_000, from);
    expect(notRpc.error?.code).toBe(-32600);
    expect((await raw.request(8, 'ping')).result).toEqual({});

    from = raw.lines.length;
    await raw.writeFiller(40 * MIB);
    await raw.write('\n');
    const listed = await raw.request(10, 'tools/list');
    expect((listed.result?.tools as unknown[]).length).toBe(TOOLS.length);
    expectOversized(await raw.answer(null, 30_000, from), 40 * MIB);

    await startLongRun(raw, 11);
    expect(await ownContainers(raw.pid)).toBeGreaterThan(0);
    // An oversized request while the run is in flight: its id is read from the message's beginning.
    const code = 'x'.repeat(11 * MIB);
    const request = `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"${code}"}}}\n`;
    await raw.write(request);
    expectOversized(await raw.answer(12), Buffer.byteLength(request) - 1);

    const pid = raw.pid;
    const exit = await raw.closeStdin(EXIT_BOUND_MS);
    process.stderr.write(`[stdio-limits] host mode: exited ${exit.ms} ms after stdin closed (a run in flight)\n`);
    expect(exit.code).toBe(0);
    expect(raw.stderr).toContain('MCP client gone; shutting down');
    expect(raw.notJson).toEqual([]);
    await pollUntil(
      async () => ((await containersNotHandedOver(pid, home.dir)) === 0 ? true : undefined),
      30_000,
      'the containers of sandpit mcp to be removed (but the warm ones it left for the next one)',
      250,
    );
  });
});

describe('sandpit mcp hosting the core: a client that stops reading stdout', () => {
  let home: TempHome;
  let raw: RawMcpStdio | undefined;

  beforeAll(() => {
    home = tempHome();
  });
  afterAll(async () => {
    raw?.kill();
    await home?.cleanup();
  });

  it('shuts down cleanly when an answer cannot be written (EPIPE), removing its containers, instead of crashing', async () => {
    raw = new RawMcpStdio(home.dir);
    await raw.initialize();
    const ran = await raw.request(1, 'tools/call', { name: 'execute_code', arguments: { code: '1 + 1' } });
    expect(ran.result?.isError ?? false).toBe(false);
    const pid = raw.pid;
    expect(await ownContainers(pid)).toBeGreaterThan(0);
    // The client closes its end of stdout but keeps stdin open: the next answer meets a broken pipe.
    raw.child.stdout.destroy();
    await raw.send({ id: 2, method: 'ping' });
    expect(await raw.waitForExit(EXIT_BOUND_MS)).toBe(0);
    expect(raw.stderr).toContain('MCP client gone; shutting down');
    expect(raw.stderr).toContain('stdout failed');
    await pollUntil(
      async () => ((await containersNotHandedOver(pid, home.dir)) === 0 ? true : undefined),
      30_000,
      'the containers of sandpit mcp to be removed (but the warm ones it left for the next one)',
      250,
    );
  });
});

describe('sandpit mcp bridging: oversized messages stay in the bridge, and a client that goes away ends its MCP session', () => {
  let sp: TestSandpit;
  let mount: McpHttpMount;
  let served: ServedHttp;
  let raw: RawMcpStdio | undefined;

  beforeAll(async () => {
    sp = await startTestSandpit();
    mount = createMcpHttpMount(sp);
    served = await serveHttp(sp, 0, [mount.route]);
  });
  afterAll(async () => {
    raw?.kill();
    await served?.close();
    await mount?.close();
    await sp?.cleanup();
  });

  it('refuses a 12 MiB write_file with its id, keeps forwarding, and on stdin close mid-run exits within seconds with the sessions of that client stopped', async () => {
    raw = new RawMcpStdio(sp.config.home);
    await raw.initialize('raw-bridge-limits');
    expect(raw.stderr).toContain('bridging stdio to the running Sandpit');
    expect(mount.sessionCount()).toBe(1);

    const big = sdkOrderedCall(5, 'write_file', { path: 'big.txt', content: 'x'.repeat(12 * MIB) });
    await raw.write(big);
    expectOversized(await raw.answer(5), Buffer.byteLength(big) - 1);
    const from = raw.lines.length;
    await raw.write('{"truncated": \n');
    expect((await raw.answer(null, 30_000, from)).error?.code).toBe(-32700);

    await startLongRun(raw, 6);
    const mine = sp.sessions.list().filter((s) => s.client === 'raw-bridge-limits');
    expect(mine).toHaveLength(1);
    expect(sp.sessions.list().find((s) => s.id === mine[0]?.id)?.state).toBe('busy');

    const exit = await raw.closeStdin(EXIT_BOUND_MS);
    process.stderr.write(`[stdio-limits] bridge mode: exited ${exit.ms} ms after stdin closed (a run in flight)\n`);
    expect(exit.code).toBe(0);
    expect(raw.stderr).toContain('bridge ending');
    expect(raw.notJson).toEqual([]);
    await pollUntil(
      () => (sp.sessions.list().some((s) => s.client === 'raw-bridge-limits') ? undefined : true),
      30_000,
      'the bridged sessions to stop',
      100,
    );
    await pollUntil(() => (mount.sessionCount() === 0 ? true : undefined), 30_000, 'the MCP session to end', 50);
  });
});
