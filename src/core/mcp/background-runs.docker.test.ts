import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { generateToken } from '../connect/token';
import { startHttpServer } from '../http/http-server';
import type { RunningHttpServer } from '../http/http-server';
import { pollUntil } from '../util/with-timeout';
import { createMcpHttpMount } from './http-mount';
import type { McpHttpMount } from './http-mount';

/** Prints a tick a second for 30 s: long enough to be fetched in pieces, across a reconnect. */
const THIRTY_SECONDS = 'import time\nfor i in range(30):\n    print(f"tick {i}", flush=True)\n    time.sleep(1)\n"finished"';

interface GetRun {
  run_id: string;
  state: string;
  status?: string;
  session_id?: string;
  output: string;
  cursor: number;
  more: boolean;
  cancel_requested: boolean;
  result?: { status: string; stdout: string; exit_code?: number; session_id: string };
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

function structured<T>(result: CallToolResult): T {
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return result.structuredContent as T;
}

describe('background runs over Streamable HTTP, with real SDK clients', () => {
  let sp: TestSandpit;
  let mount: McpHttpMount;
  let http: RunningHttpServer;
  let token: string;
  const open: Array<{ client: Client; transport: StreamableHTTPClientTransport }> = [];

  async function connect(name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const transport = new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(transport);
    const connected = { client, transport };
    open.push(connected);
    return connected;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown>, options?: Parameters<Client['callTool']>[2]): Promise<CallToolResult> =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000, ...options })) as CallToolResult;

  beforeAll(async () => {
    sp = await startTestSandpit();
    token = generateToken();
    mount = createMcpHttpMount(sp);
    http = await startHttpServer({ sandpit: sp, port: 0, token, mounts: [mount.route] });
  });
  afterAll(async () => {
    for (const c of open) await c.client.close().catch(() => undefined);
    await http?.close();
    await mount?.close();
    await sp?.cleanup();
  });

  it('a 30 s run returns its id at once, is fetched in pieces, survives a reconnect, makes later calls wait and say so, and is cancelled; another client is refused', async () => {
    const first = await connect('bg-assistant');
    const t0 = Date.now();
    const started = await call(first.client, 'execute_code', { code: THIRTY_SECONDS, background: true });
    const start = structured<{ run_id: string; state: string }>(started);
    expect(start.run_id).toMatch(/^run-[0-9a-f]{16}$/);
    expect(textOf(started)).toContain(`Started in the background as ${start.run_id}`);
    expect(textOf(started)).toContain('time limit 60 min');
    // "At once": the answer came back long before the run could end.
    expect(Date.now() - t0).toBeLessThan(25_000);

    // Piece one: waits for the first output.
    const one = structured<GetRun>(await call(first.client, 'get_run', { run_id: start.run_id, wait_seconds: 20 }));
    expect(one.output).toContain('tick 0');
    expect(['running', 'queued']).toContain(one.state);
    // Piece two: only what is new since the cursor.
    const two = structured<GetRun>(await call(first.client, 'get_run', { run_id: start.run_id, since: one.cursor, wait_seconds: 20 }));
    expect(two.output).not.toContain('tick 0\n');
    expect(two.output).toMatch(/tick [1-9]/);
    expect(two.cursor).toBeGreaterThan(one.cursor);
    const sessionId = two.session_id!;
    expect(sessionId).toBeDefined();

    // The client goes away (its MCP session is deleted) and comes back as a new MCP session with the same name and token.
    await first.transport.terminateSession();
    await first.client.close();
    const again = await connect('bg-assistant');
    const listed = structured<{ runs: Array<{ run_id: string; state: string }> }>(await call(again.client, 'list_runs', {}));
    expect(listed.runs.map((r) => r.run_id)).toContain(start.run_id);
    const three = structured<GetRun>(await call(again.client, 'get_run', { run_id: start.run_id, since: two.cursor, wait_seconds: 20 }));
    expect(three.state).toBe('running');
    expect(three.output).toMatch(/tick \d+/);
    // Its session did not stop with the MCP session that made it.
    expect(sp.sessions.list().some((s) => s.id === sessionId)).toBe(true);

    // Attack: another client with the same token cannot see, fetch or cancel it (same words as for an id that never existed).
    const other = await connect('other-assistant');
    const refused = await call(other.client, 'get_run', { run_id: start.run_id });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(`NOT_FOUND: No background run ${start.run_id} of yours: it never existed, was started by another client, or ended long ago. list_runs shows yours.`);
    const made = await call(other.client, 'get_run', { run_id: 'run-0123456789abcdef' });
    expect(textOf(made)).toBe(textOf(refused).replace(start.run_id, 'run-0123456789abcdef'));
    expect((await call(other.client, 'cancel_run', { run_id: start.run_id })).isError).toBe(true);
    expect(structured<{ runs: unknown[] }>(await call(other.client, 'list_runs', {})).runs).toEqual([]);

    // A later call on the same session (the panel can use it: here through the API as the person) waits behind it and says so.
    const messages: string[] = [];
    const waitingCall = sp.api['sessions.execute'](
      { sessionId, code: '"after the background run"' },
      { transport: 'ipc', onWaiting: (what) => { if (what) messages.push(what); } },
    );
    await pollUntil(() => (messages.length > 0 ? true : undefined), 10_000, 'the later call to say it waits');
    expect(messages[0]).toMatch(new RegExp(`^waiting for session ${sessionId}: 1 job ahead of this one, background run ${start.run_id} \\(code: import time.*\\) running for \\d+ s; it starts when that ends \\(cancel_run ${start.run_id} stops it\\)$`, 's'));

    // Cancelled: the run is interrupted, the session and its variables stay, the waiting call runs next.
    const cancel = structured<{ cancel_requested: boolean; state: string }>(await call(again.client, 'cancel_run', { run_id: start.run_id }));
    expect(cancel).toMatchObject({ cancel_requested: true, state: 'running' });
    const end = await pollUntil(
      async () => {
        const r = structured<GetRun>(await call(again.client, 'get_run', { run_id: start.run_id, since: three.cursor, wait_seconds: 10 }));
        return r.state === 'done' ? r : undefined;
      },
      30_000,
      'the cancelled run to end',
    );
    expect(end.status).toBe('interrupted');
    // The full result, in the shape of a foreground execute_code.
    expect(end.result).toMatchObject({ status: 'interrupted', session_id: sessionId });
    expect(end.result?.stdout).toContain('tick 0\n');
    expect((await waitingCall).result).toBe("'after the background run'");

    // Audit: one row for the run, as for a foreground one.
    const rows = sp.audit
      .export('jsonl', { filters: { sessionId } }, 50)
      .content.split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { code: string; status: string; client?: string });
    expect(rows.filter((r) => r.code === THIRTY_SECONDS)).toEqual([expect.objectContaining({ status: 'interrupted', client: 'bg-assistant' })]);
  }, 180_000);

  it('run_command in the background: its output comes as it runs, its exit code with its end, its audit row says "background"; cancel stops it', async () => {
    const c = await connect('bg-commands');
    const streaming = structured<{ run_id: string }>(await call(c.client, 'run_command', { command: 'echo first; sleep 4; echo second', background: true }));
    const early = await pollUntil(
      async () => {
        const r = structured<GetRun>(await call(c.client, 'get_run', { run_id: streaming.run_id, wait_seconds: 10 }));
        return r.output !== '' ? r : undefined;
      },
      30_000,
      'the command\'s first line',
    );
    expect(early).toMatchObject({ state: 'running', output: 'first\n' });
    const rest = await pollUntil(
      async () => {
        const r = structured<GetRun>(await call(c.client, 'get_run', { run_id: streaming.run_id, since: early.cursor, wait_seconds: 10 }));
        return r.state === 'done' ? r : undefined;
      },
      30_000,
      'the streaming command to end',
    );
    expect(rest).toMatchObject({ status: 'ok', output: 'second\n', result: { exit_code: 0, stdout: 'first\nsecond\n' } });
    // Its row in the audit log names the background run; a foreground command's names none.
    await call(c.client, 'run_command', { command: 'true', session_id: rest.session_id });
    const rows = sp.audit
      .export('jsonl', { filters: { sessionId: rest.session_id! } }, 50)
      .content.split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { code: string; backgroundRun?: string });
    expect(rows.map((r) => [r.code, r.backgroundRun])).toEqual([
      ['echo first; sleep 4; echo second', streaming.run_id],
      ['true', undefined],
    ]);
    expect((await sp.audit.verify()).ok).toBe(true);

    const quick = structured<{ run_id: string }>(await call(c.client, 'run_command', { command: 'echo hello; echo oops >&2; exit 3', background: true }));
    const done = await pollUntil(
      async () => {
        const r = structured<GetRun>(await call(c.client, 'get_run', { run_id: quick.run_id, wait_seconds: 10 }));
        return r.state === 'done' ? r : undefined;
      },
      60_000,
      'the background command to end',
    );
    expect(done).toMatchObject({ status: 'error', result: { exit_code: 3, stdout: 'hello\n', stderr: 'oops\n' } });
    // Both streams in the output; stdout and stderr are two pipes, so two lines printed at once come either way.
    expect(done.output.split(/(?<=\n)/).sort()).toEqual(['hello\n', 'oops\n']);

    const slow = structured<{ run_id: string }>(await call(c.client, 'run_command', { command: 'sleep 30; echo never', background: true }));
    await pollUntil(
      async () => (structured<GetRun>(await call(c.client, 'get_run', { run_id: slow.run_id })).state === 'running' ? true : undefined),
      30_000,
      'the slow command to start',
    );
    await call(c.client, 'cancel_run', { run_id: slow.run_id });
    const stopped = await pollUntil(
      async () => {
        const r = structured<GetRun>(await call(c.client, 'get_run', { run_id: slow.run_id, wait_seconds: 10 }));
        return r.state === 'done' ? r : undefined;
      },
      30_000,
      'the cancelled command to end',
    );
    expect(stopped).toMatchObject({ status: 'interrupted', result: { stdout: '' } });
    // Ended by the signal (128 + TERM), long before its 30 s.
    expect(stopped.result?.exit_code).toBe(143);
  }, 120_000);

  it('run_file in the background runs the file; interrupting its session (the panel\'s Interrupt) ends it interrupted, variables kept', async () => {
    const c = await connect('bg-files');
    structured(await call(c.client, 'write_file', { path: 'long.py', content: 'import time\nkept = 7\nprint("file started", flush=True)\ntime.sleep(30)\n' }));
    const start = structured<{ run_id: string }>(await call(c.client, 'run_file', { path: 'long.py', background: true }));
    const running = await pollUntil(
      async () => {
        const r = structured<GetRun>(await call(c.client, 'get_run', { run_id: start.run_id, wait_seconds: 10 }));
        return r.output.includes('file started') ? r : undefined;
      },
      30_000,
      'the file to print',
    );
    expect(running.state).toBe('running');
    expect((await sp.api['sessions.interrupt']({ sessionId: running.session_id! }, { transport: 'ipc' })).interrupted).toBe(true);
    const end = await pollUntil(
      async () => {
        const r = structured<GetRun>(await call(c.client, 'get_run', { run_id: start.run_id, since: running.cursor, wait_seconds: 10 }));
        return r.state === 'done' ? r : undefined;
      },
      30_000,
      'the interrupted file run to end',
    );
    expect(end).toMatchObject({ status: 'interrupted', cancel_requested: false, result: { status: 'interrupted' } });
    expect(structured<{ result?: string }>(await call(c.client, 'execute_code', { code: 'kept', session_id: running.session_id })).result).toBe('7');
  }, 120_000);

  it('a session its run holds outlives the client\'s MCP session only while the run does: it stops when the run ends, and the result stays', async () => {
    const c = await connect('bg-orphan');
    const first = structured<{ session_id: string }>(await call(c.client, 'execute_code', { code: '1' }));
    const other = structured<{ session_id: string }>(await call(c.client, 'create_session', {}));
    const start = structured<{ run_id: string }>(await call(c.client, 'execute_code', { session_id: first.session_id, code: 'import time\ntime.sleep(6)\n"held"', background: true }));
    await pollUntil(async () => (structured<GetRun>(await call(c.client, 'get_run', { run_id: start.run_id })).state === 'running' ? true : undefined), 30_000, 'the run to start');
    const removed: string[] = [];
    const off = sp.bus.on('session.removed', ({ sessionId }) => removed.push(sessionId));
    try {
      await c.transport.terminateSession();
      await c.client.close();
      // The session the run holds stays; the client's other session stops at once.
      await pollUntil(() => (removed.includes(other.session_id) ? true : undefined), 30_000, 'the other session to stop');
      const panel = { transport: 'ipc' } as const;
      expect((await sp.api['sessions.list']({}, panel)).sessions.map((s) => s.id)).toContain(first.session_id);
      // Once the run is over, its session goes too — long before any idle time (30 minutes by default).
      await pollUntil(() => (removed.includes(first.session_id) ? true : undefined), 60_000, 'the held session to stop after its run');
      expect((await sp.api['runs.get']({ runId: start.run_id, since: 0, waitMs: 0, maxChars: 100 }, panel)).run).toMatchObject({ state: 'done', status: 'ok' });
      expect((await sp.api['sessions.list']({}, panel)).sessions.map((s) => s.id)).not.toContain(first.session_id);
    } finally {
      off();
    }
    // The same client, connected again, still gets the run's result.
    const again = await connect('bg-orphan');
    expect(structured<GetRun>(await call(again.client, 'get_run', { run_id: start.run_id }))).toMatchObject({ state: 'done', result: { status: 'ok' } });
  }, 120_000);

  it('refuses a time limit longer than Settings allow, saying where to change it', async () => {
    const c = await connect('bg-limits');
    const refused = await call(c.client, 'execute_code', { code: '1', background: true, timeout_seconds: 7_200 });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('INVALID_INPUT: A background run may take at most 60 minutes (the "Longest background run" in Settings). Ask for less time, or ask the person to raise that setting.');
  });
});
