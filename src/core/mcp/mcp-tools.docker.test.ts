import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../util/with-timeout';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { createMcpServer } from './create-mcp-server';

const TOOL_NAMES = [
  'execute_code',
  'create_session',
  'stop_session',
  'list_sessions',
  'list_environments',
  'install_packages',
  'check_packages',
  'run_command',
  'write_file',
  'read_file',
  'list_files',
  'run_file',
  'snapshot_session',
  'restore_snapshot',
  'fork_session',
  'list_snapshots',
  'delete_snapshot',
  'get_run',
  'cancel_run',
  'list_runs',
  'list_changes',
  'start_process',
  'list_processes',
  'process_output',
  'stop_process',
  'preview_port',
];
const DOT_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

interface Connected {
  client: Client;
  close(): Promise<void>;
}

/** A real SDK client linked in-process to a Sandpit MCP server that calls as `principal`. */
async function connect(sp: TestSandpit, principal: string, name = 'tools-test'): Promise<Connected> {
  const mcp = createMcpServer({ sandpit: sp, context: () => ({ transport: 'mcp-stdio', client: name, principal }) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(serverSide);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await mcp.close();
    },
  };
}

async function tool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  options?: Parameters<Client['callTool']>[2],
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

function structured<T = Record<string, unknown>>(result: CallToolResult): T {
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return result.structuredContent as T;
}

describe('MCP tools over a real engine', () => {
  let sp: TestSandpit;
  let a: Connected;

  beforeAll(async () => {
    sp = await startTestSandpit();
    a = await connect(sp, 'principal-a', 'client-a');
  });
  afterAll(async () => {
    await a?.close();
    await sp?.cleanup();
  });

  it('lists exactly the eighteen tools, each with a title, all four hints, an output schema and described inputs', async () => {
    const { tools } = await a.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const t of tools) {
      expect(t.title, t.name).toBeTruthy();
      expect(t.description, t.name).toBeTruthy();
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(typeof t.annotations?.[hint], `${t.name}.${hint}`).toBe('boolean');
      }
      expect(t.outputSchema?.type, t.name).toBe('object');
      for (const [field, schema] of Object.entries(t.inputSchema.properties ?? {})) {
        expect((schema as { description?: string }).description, `${t.name}.${field}`).toBeTruthy();
      }
    }
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(hints.list_sessions?.readOnlyHint).toBe(true);
    expect(hints.execute_code?.readOnlyHint).toBe(false);
    expect(hints.execute_code?.openWorldHint).toBe(false);
    expect(hints.install_packages?.openWorldHint).toBe(true);
  });

  it('runs code without a session id in the default session, which keeps state between calls', async () => {
    const first = structured<{ session_id: string; status: string }>(
      await tool(a.client, 'execute_code', { code: 'x = 41\nprint("hello")' }),
    );
    expect(first.status).toBe('ok');
    const second = await tool(a.client, 'execute_code', { code: 'x + 1' });
    const out = structured<{ session_id: string; result: string; status: string; duration_ms: number }>(second);
    expect(out.session_id).toBe(first.session_id);
    expect(out.result).toBe('42');
    expect(textOf(second)).toMatch(/^ok in \d+(\.\d)? m?s/);
    expect(textOf(second)).toContain('result: 42');
  });

  it('answers tool failures with isError and the error code, but a failing program with status "error"', async () => {
    const missing = await tool(a.client, 'execute_code', { code: '1', session_id: 'ses-doesnotexist' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('SESSION_NOT_FOUND');

    const noCode = await tool(a.client, 'execute_code', {});
    expect(noCode.isError).toBe(true);
    expect(textOf(noCode)).toMatch(/invalid arguments.*code/is);

    const badEnv = await tool(a.client, 'create_session', { environment: 'r-lang' });
    expect(badEnv.isError).toBe(true);
    expect(textOf(badEnv)).toMatch(/^INVALID_INPUT: There is no environment "r-lang"\. The environments are: "python" \(Python\)/);

    const syntax = await tool(a.client, 'execute_code', { code: 'def (' });
    const failed = structured<{ status: string; error?: { name: string; traceback: string } }>(syntax);
    expect(failed.status).toBe('error');
    expect(failed.error?.name).toBe('SyntaxError');
    expect(textOf(syntax)).toContain('SyntaxError');

    const slow = structured<{ status: string; message?: string }>(
      await tool(a.client, 'execute_code', { code: 'while True: pass', timeout_seconds: 2 }),
    );
    expect(slow.status).toBe('timeout');
    expect(slow.message).toBeTruthy();
  });

  it('refuses a preview of a port that cannot exist in plain words', async () => {
    for (const port of [0, 70_000]) {
      const r = await tool(a.client, 'preview_port', { port });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toContain('a port is a whole number from 1 to 65535');
    }
  });

  it('runs shell commands with their exit code, stdout and stderr', async () => {
    const r = structured<{ exit_code: number; stdout: string; stderr: string; timed_out: boolean }>(
      await tool(a.client, 'run_command', { command: 'echo out; echo err >&2; exit 3' }),
    );
    expect(r).toMatchObject({ exit_code: 3, stdout: 'out\n', stderr: 'err\n', timed_out: false });
  });

  it('writes, appends, reads, lists and runs a file; binary files come back as base64', async () => {
    expect(structured(await tool(a.client, 'write_file', { path: 'prog/main.py', content: 'base = 40\n' }))).toEqual({
      path: 'prog/main.py',
      size: 10,
    });
    expect(
      structured(
        await tool(a.client, 'write_file', { path: 'prog/main.py', content: 'print("sum", base + 2)\n', append: true }),
      ),
    ).toMatchObject({ size: 33 });
    const read = structured<{ content: string; encoding: string }>(
      await tool(a.client, 'read_file', { path: 'prog/main.py' }),
    );
    expect(read).toMatchObject({ encoding: 'utf8', content: 'base = 40\nprint("sum", base + 2)\n' });
    const ran = structured<{ stdout: string; status: string }>(
      await tool(a.client, 'run_file', { path: 'prog/main.py' }),
    );
    expect(ran).toMatchObject({ status: 'ok', stdout: 'sum 42\n' });

    const listing = structured<{ entries: Array<{ path: string; type: string }> }>(
      await tool(a.client, 'list_files', { path: 'prog' }),
    );
    expect(listing.entries).toContainEqual(expect.objectContaining({ path: 'prog/main.py', type: 'file' }));
    const top = structured<{ entries: Array<{ path: string; type: string }> }>(await tool(a.client, 'list_files', {}));
    expect(top.entries).toContainEqual(expect.objectContaining({ path: 'prog', type: 'directory' }));

    await tool(a.client, 'execute_code', { code: "open('/workspace/bytes.bin', 'wb').write(bytes(range(256)))" });
    const binary = structured<{ content: string; encoding: string }>(
      await tool(a.client, 'read_file', { path: 'bytes.bin' }),
    );
    expect(binary.encoding).toBe('base64');
    expect(Buffer.from(binary.content, 'base64').equals(Buffer.from(Array.from({ length: 256 }, (_, i) => i)))).toBe(
      true,
    );
  });

  it('creates, lists and stops sessions', async () => {
    const created = structured<{
      session_id: string;
      language: string;
      environment: string;
      runs: number;
      status: string;
    }>(await tool(a.client, 'create_session', { environment: 'Python', name: 'scratch', timeout_minutes: 5 }));
    expect(created).toMatchObject({ language: 'python', environment: 'python', environment_name: 'Python', name: 'scratch', shared: false, runs: 0, status: 'ready' });
    await tool(a.client, 'execute_code', { code: '1', session_id: created.session_id });
    const listed = structured<{ sessions: Array<{ session_id: string; runs: number }> }>(
      await tool(a.client, 'list_sessions'),
    );
    expect(listed.sessions).toContainEqual(expect.objectContaining({ session_id: created.session_id, runs: 1 }));
    expect(structured(await tool(a.client, 'stop_session', { session_id: created.session_id }))).toEqual({
      session_id: created.session_id,
      stopped: true,
    });
    const after = structured<{ sessions: Array<{ session_id: string }> }>(await tool(a.client, 'list_sessions'));
    expect(after.sessions.map((s) => s.session_id)).not.toContain(created.session_id);
    const gone = await tool(a.client, 'execute_code', { code: '1', session_id: created.session_id });
    expect(gone.isError).toBe(true);

    const envs = structured<{ environments: Array<{ id: string; name: string; language: string; status: string }> }>(
      await tool(a.client, 'list_environments'),
    );
    expect(envs.environments).toContainEqual(expect.objectContaining({ id: 'python', name: 'Python', language: 'python', status: 'ready' }));
    expect(envs.environments.map((e) => e.id)).toEqual(['python', 'python-data', 'node', 'bash', 'typescript', 'r']);
  });

  it('returns a saved picture as image content and a resource link, readable as a resource', async () => {
    const result = await tool(a.client, 'execute_code', {
      code: `import base64\nopen('/workspace/dot.png', 'wb').write(base64.b64decode('${DOT_PNG}'))`,
    });
    const out = structured<{ artifacts: Array<{ path: string; mime: string; uri: string; sha256: string }> }>(result);
    const artifact = out.artifacts.find((x) => x.path === 'dot.png');
    expect(artifact?.mime).toBe('image/png');
    expect(artifact?.uri).toMatch(/^sandpit:\/\/artifacts\/[a-f0-9]{64}$/);
    expect(result.content).toContainEqual({ type: 'image', data: DOT_PNG, mimeType: 'image/png' });
    expect(result.content).toContainEqual(
      expect.objectContaining({ type: 'resource_link', uri: artifact?.uri, mimeType: 'image/png', name: 'dot.png' }),
    );

    const { resources } = await a.client.listResources();
    expect(resources.map((r) => r.uri)).toContain(artifact?.uri);
    const read = await a.client.readResource({ uri: artifact?.uri ?? '' });
    expect(read.contents[0]).toMatchObject({ mimeType: 'image/png', blob: DOT_PNG });

    const { resourceTemplates } = await a.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(['sandpit://artifacts/{sha256}', 'sandpit://sessions/{session_id}/files/{+path}']),
    );
    const file = resources.find((r) => r.uri.startsWith('sandpit://sessions/') && r.uri.endsWith('/files/dot.png'));
    expect(file).toBeDefined();
    const viaSession = await a.client.readResource({ uri: file?.uri ?? '' });
    expect(viaSession.contents[0]).toMatchObject({ blob: DOT_PNG });
  });

  it('sends progress with the newest output line during a long run', async () => {
    const seen: Progress[] = [];
    const result = await tool(
      a.client,
      'execute_code',
      { code: 'import time\nfor i in range(5):\n    print(f"tick {i}", flush=True)\n    time.sleep(1)' },
      { onprogress: (p) => seen.push(p), resetTimeoutOnProgress: true },
    );
    expect(structured<{ status: string }>(result).status).toBe('ok');
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.some((p) => p.message?.includes('tick'))).toBe(true);
    const counts = seen.map((p) => p.progress);
    expect(counts).toEqual([...counts].sort((x, y) => x - y));
    expect(new Set(counts).size).toBe(counts.length);
  });

  it('interrupts the run when the request is cancelled; the session and its variables stay', async () => {
    const created = structured<{ session_id: string }>(await tool(a.client, 'create_session'));
    const sessionId = created.session_id;
    await tool(a.client, 'execute_code', { code: 'keep = 7', session_id: sessionId });
    const statuses: string[] = [];
    const off = sp.bus.on('execution.done', (e) => {
      if (e.sessionId === sessionId) statuses.push(e.status);
    });
    const controller = new AbortController();
    const started = new Promise<void>((resolve) => {
      const offStarted = sp.bus.on('execution.output', (e) => {
        if (e.sessionId === sessionId) {
          offStarted();
          resolve();
        }
      });
    });
    const pending = tool(
      a.client,
      'execute_code',
      { code: 'import time\nprint("go", flush=True)\nwhile True: time.sleep(0.1)', session_id: sessionId },
      { signal: controller.signal },
    );
    await started;
    controller.abort('enough');
    await expect(pending).rejects.toThrow();
    await pollUntil(() => (statuses.length > 0 ? true : undefined), 15_000, 'the cancelled run to end');
    off();
    expect(statuses.at(-1)).toBe('interrupted');
    const again = structured<{ result: string; status: string }>(
      await tool(a.client, 'execute_code', { code: 'keep * 6', session_id: sessionId }),
    );
    expect(again).toMatchObject({ status: 'ok', result: '42' });
  });

  it("refuses another client's sessions and their files", async () => {
    const b = await connect(sp, 'principal-b', 'client-b');
    try {
      const mine = structured<{ session_id: string }>(await tool(a.client, 'create_session'));
      await tool(a.client, 'write_file', { path: 'secret.txt', content: 'for a only', session_id: mine.session_id });
      for (const [name, args] of [
        ['execute_code', { code: '1', session_id: mine.session_id }],
        ['read_file', { path: 'secret.txt', session_id: mine.session_id }],
        ['stop_session', { session_id: mine.session_id }],
      ] as const) {
        const refused = await tool(b.client, name, args);
        expect(refused.isError, name).toBe(true);
        expect(textOf(refused)).toContain('SESSION_NOT_FOUND');
      }
      const theirs = structured<{ sessions: Array<{ session_id: string }> }>(await tool(b.client, 'list_sessions'));
      expect(theirs.sessions.map((s) => s.session_id)).not.toContain(mine.session_id);
      await expect(
        b.client.readResource({ uri: `sandpit://sessions/${mine.session_id}/files/secret.txt` }),
      ).rejects.toThrow(/not found/);
      const { resources } = await b.client.listResources();
      expect(resources.filter((r) => r.uri.includes(mine.session_id))).toEqual([]);
      const aArtifacts = (await a.client.listResources()).resources.filter((r) =>
        r.uri.startsWith('sandpit://artifacts/'),
      );
      expect(aArtifacts.length).toBeGreaterThan(0);
      await expect(b.client.readResource({ uri: aArtifacts[0]?.uri ?? '' })).rejects.toThrow(/not found/);
      // B's own default session is separate from A's.
      const bRun = structured<{ session_id: string }>(await tool(b.client, 'execute_code', { code: '"b"' }));
      expect(bRun.session_id).not.toBe(mine.session_id);
      expect(sp.sessions.session(bRun.session_id).info().client).toBe('client-b');
    } finally {
      await b.close();
    }
  });
});
