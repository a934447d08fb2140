import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../api/dispatcher';
import { startTestSandpit } from '../../test-support/sandpit';
import { connectInProcess } from '../../test-support/in-process-mcp';
import type { TestSandpit } from '../../test-support/sandpit';

interface Proc {
  process_id: string;
  session_id: string;
  state: string;
  exit_code?: number;
  stopped_by?: string;
  output_bytes: number;
}
interface Out {
  process: Proc;
  text: string;
  next: number;
  dropped_bytes: number;
  more: boolean;
}

const PANEL = { transport: 'ipc', client: 'panel' } as const;

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

describe('processes that keep running (start_process over MCP, real engine)', () => {
  let sp: TestSandpit;
  let client: Client;
  let closeMcp: () => Promise<void>;
  const tool = async <T>(name: string, args: Record<string, unknown> = {}): Promise<T & { _text: string }> => {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    if (r.isError) throw new Error(`${name} failed: ${text(r)}`);
    return { ...(r.structuredContent as T), _text: text(r) };
  };
  /** Made in the panel (usable by every client, the test's MCP client too). */
  const newSession = async (limits?: { memoryMb: number; pids: number }): Promise<string> =>
    (await call(sp.api, 'sessions.create', limits ? { limits } : {}, PANEL)).id;
  /** The command lines of every process in the session's sandbox, read from /proc inside it. */
  const commandLines = async (sessionId: string): Promise<string> =>
    (
      await call(
        sp.api,
        'sessions.runCommand',
        { sessionId, command: 'for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline 2>/dev/null; echo; done' },
        PANEL,
      )
    ).stdout;

  beforeAll(async () => {
    sp = await startTestSandpit();
    const connected = await connectInProcess(sp, 'process-test', 'mcp:process-test');
    client = connected.client;
    closeMcp = connected.close;
  });
  afterAll(async () => {
    await closeMcp?.();
    await sp?.cleanup();
  });

  it("keeps running across runs (a run's own leftovers are still stopped), its output follows the cursor, and stop_process ends it", async () => {
    const sessionId = await newSession();
    const started = await tool<Proc>('start_process', {
      session_id: sessionId,
      name: 'ticker',
      command: 'i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 0.2; done',
    });
    expect(started.state).toBe('running');
    expect(started._text).toContain(`Started process ${started.process_id} in session ${sessionId}; it keeps running.`);

    const first = await tool<Out>('process_output', { process_id: started.process_id, wait_seconds: 10 });
    expect(first.text).toMatch(/^tick 1\n/);
    // A run that leaves a process behind: that one is stopped when the run ends, the ticker is not.
    const run = await tool<{ status: string }>('execute_code', {
      session_id: sessionId,
      code: "import subprocess; subprocess.Popen(['sleep', '1234'])",
    });
    expect(run.status).toBe('ok');
    const lines = await commandLines(sessionId);
    expect(lines).not.toContain('sleep 1234');
    expect(lines).toContain('sandpit-process');

    // Only what is new since the cursor, and the ticks go on in order.
    const second = await tool<Out>('process_output', {
      process_id: started.process_id,
      since: first.next,
      wait_seconds: 10,
    });
    expect(second.text).not.toBe('');
    const firstLast = Number(/tick (\d+)\n$/.exec(first.text)?.[1]);
    expect(second.text.startsWith(`tick ${firstLast + 1}\n`), second.text).toBe(true);
    expect(second.dropped_bytes).toBe(0);

    const listed = await tool<{ processes: Proc[] }>('list_processes', { session_id: sessionId });
    expect(listed.processes.map((p) => [p.process_id, p.state])).toEqual([[started.process_id, 'running']]);
    expect(listed._text).toBe(`${started.process_id} "ticker" in session ${sessionId}: running`);

    const stopped = await tool<Proc>('stop_process', { process_id: started.process_id });
    expect([stopped.state, stopped.stopped_by]).toEqual(['stopped', 'process-test stopped it']);
    expect(await commandLines(sessionId)).not.toContain('tick');
    // Its row in the audit log: the command, completed when it ended, with its last output.
    const row = sp.audit
      .list({ limit: 50 })
      .rows.find((r) => r.method === 'processes.start' && r.sessionId === sessionId);
    expect(row).toBeDefined();
    const entry = sp.audit.get(row!.id)!;
    expect([entry.status, entry.code]).toEqual([
      'killed',
      'i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 0.2; done',
    ]);
    expect(entry.stdout).toMatch(/tick \d+/);
    expect(entry.errorMessage).toBe('Stopped: process-test stopped it.');
  });

  it('keeps running across runs in a JavaScript session too (its agent spares it the same way)', async () => {
    const sessionId = (await call(sp.api, 'sessions.create', { language: 'javascript' }, PANEL)).id;
    const p = await tool<Proc>('start_process', {
      session_id: sessionId,
      command: 'while true; do echo alive; sleep 0.2; done',
    });
    const run = await tool<{ status: string }>('execute_code', {
      session_id: sessionId,
      code: "require('child_process').spawn('sleep', ['4321'], { detached: true, stdio: 'ignore' }); 1",
    });
    expect(run.status).toBe('ok');
    const lines = await commandLines(sessionId);
    expect(lines).not.toContain('sleep 4321');
    expect(lines).toContain('echo alive');
    expect((await tool<Proc>('stop_process', { process_id: p.process_id })).state).toBe('stopped');
  });

  it('reports its exit status, keeps the last 1 MiB and says how much older output was dropped', async () => {
    const sessionId = await newSession();
    const p = await tool<Proc>('start_process', {
      session_id: sessionId,
      command: "python3 -c \"import sys; sys.stdout.write('x' * (3 * 1024 * 1024)); print('the end')\"; exit 3",
    });
    let out = await tool<Out>('process_output', { process_id: p.process_id, since: 0, wait_seconds: 20 });
    // Read as it comes (in pieces as small as the pipe's), until it ended.
    for (let i = 0; i < 2_000 && out.process.state === 'running'; i += 1)
      out = await tool<Out>('process_output', { process_id: p.process_id, since: out.next, wait_seconds: 5 });
    const all = await tool<Out>('process_output', { process_id: p.process_id, since: 0 });
    expect([all.process.state, all.process.exit_code]).toEqual(['exited', 3]);
    expect(all.dropped_bytes).toBe(3 * 1024 * 1024 + 8 - 1024 * 1024);
    expect(all._text).toContain('of older output were dropped: only the last 1 MiB is kept');
    expect(all.more).toBe(true); // one answer holds at most 256 KiB
    let cursor = all.next;
    let tail = '';
    for (let i = 0; i < 10; i += 1) {
      const page = await tool<Out>('process_output', { process_id: p.process_id, since: cursor });
      tail = page.text;
      cursor = page.next;
      if (!page.more) break;
    }
    expect(tail.endsWith('the end\n')).toBe(true);
  });

  it('ends with its session: a restart, a pause and a stop list it as stopped, saying why', async () => {
    const sessionId = await newSession();
    const a = await tool<Proc>('start_process', { session_id: sessionId, command: 'sleep 1000' });
    await call(sp.api, 'sessions.restart', { sessionId }, PANEL);
    const afterRestart = await tool<{ processes: Proc[] }>('list_processes', { session_id: sessionId });
    expect(afterRestart.processes.map((p) => [p.process_id, p.state, p.stopped_by])).toEqual([
      [a.process_id, 'stopped', 'its session restarted'],
    ]);

    const paused = await tool<Proc>('start_process', { session_id: sessionId, command: 'sleep 1000' });
    expect(await sp.sessions.session(sessionId).pause('idle')).toBe(true);
    await expect
      .poll(async () => {
        const { process: p } = await tool<Out>('process_output', { process_id: paused.process_id });
        return [p.state, p.stopped_by];
      })
      .toEqual(['stopped', 'its session was paused']);

    // A new process resumes the paused session first.
    const b = await tool<Proc>('start_process', { session_id: sessionId, command: 'sleep 1000' });
    expect(b.state).toBe('running');
    await tool('stop_session', { session_id: sessionId });
    const out = await call(sp.api, 'processes.output', { processId: b.process_id }, PANEL);
    expect([out.process.state, out.process.stoppedBy]).toEqual(['stopped', 'its session was stopped']);
  });

  it("is held by the session's limits: a process that eats memory or forks without end does not take the session down", async () => {
    const sessionId = await newSession({ memoryMb: 256, pids: 64 });
    const eater = await tool<Proc>('start_process', {
      session_id: sessionId,
      command: 'python3 -c "b = bytearray(1024 * 1024 * 1024); print(\'allocated\')"',
    });
    let out = await tool<Out>('process_output', { process_id: eater.process_id, wait_seconds: 30 });
    for (let i = 0; i < 20 && out.process.state === 'running'; i += 1)
      out = await tool<Out>('process_output', { process_id: eater.process_id, since: out.next, wait_seconds: 5 });
    expect(out.process.state).toBe('exited');
    expect(out.process.exit_code).not.toBe(0);
    expect(out.text).not.toContain('allocated');

    const forker = await tool<Proc>('start_process', {
      session_id: sessionId,
      command: 'while true; do sleep 60 & done',
    });
    const stats = await call(sp.api, 'sessions.stats', { sessionId }, PANEL);
    expect(stats.pids).toBeLessThanOrEqual(64);
    await tool('stop_process', { process_id: forker.process_id });
    const still = await tool<{ status: string; stdout: string }>('execute_code', {
      session_id: sessionId,
      code: 'print(6 * 7)',
    });
    expect([still.status, still.stdout]).toEqual(['ok', '42\n']);
  });
});
