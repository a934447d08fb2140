import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EventPayload } from '../../shared/api/contract';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

function requireNodeImage(): void {
  if (!inject('images').node) throw new Error('The node executor image was not built by the docker globalSetup (is executor-image/javascript/Dockerfile there?).');
}

// The Python session tests (execution.docker.test.ts, limits.docker.test.ts) for JavaScript: one vm context
// per session, over both agent channels.
describe.each(['socket', 'attach'] as const)('javascript sessions over the %s channel', (channel) => {
  let sp: TestSandpit;
  let sessionId: string;

  beforeAll(async () => {
    requireNodeImage();
    sp = await startTestSandpit({ channel });
    sessionId = (await newSession(sp, { language: 'javascript' })).id;
  });
  afterAll(async () => sp?.cleanup());

  it('runs on the node image over the requested channel', () => {
    const info = sp.sessions.session(sessionId).info();
    expect(info.channel).toBe(channel);
    expect(info.language).toBe('javascript');
    expect(info.image).toBe(inject('images').node);
  });

  it('keeps let, const, functions and classes between runs', async () => {
    const first = await sp.sessions.session(sessionId).execute("let x = 21\nconst path = require('node:path')\nfunction double(v) { return v * 2 }\nclass Box { constructor(v) { this.v = v } }");
    expect(first.status, first.error?.traceback).toBe('ok');
    const r = await sp.sessions.session(sessionId).execute("double(new Box(x).v) + path.basename('/a/0').length - 1");
    expect(r.status).toBe('ok');
    expect(r.result).toBe('42');
  });

  it('returns the inspected last expression, and nothing for undefined', async () => {
    expect((await sp.sessions.session(sessionId).execute("'a'.repeat(3)")).result).toBe("'aaa'");
    expect((await sp.sessions.session(sessionId).execute('({ n: [1, 2] })')).result).toBe('{ n: [ 1, 2 ] }');
    expect((await sp.sessions.session(sessionId).execute('undefined')).result).toBeUndefined();
  });

  it('supports top-level await, and what an async cell declares persists', async () => {
    const r = await sp.sessions.session(sessionId).execute('const v = await new Promise((resolve) => setTimeout(() => resolve(7), 50))\nlet w = v * 2\nw + 1');
    expect(r.status, r.error?.traceback).toBe('ok');
    expect(r.result).toBe('15');
    expect((await sp.sessions.session(sessionId).execute('[v, w]')).result).toBe('[ 7, 14 ]');
  });

  it('streams console output and child output in order, before the run ends', async () => {
    const seen: Array<{ kind: string; text?: string; at: number }> = [];
    const off = sp.bus.onAny((name, payload) => {
      const p = payload as EventPayload<'execution.output'>;
      if (p.sessionId !== sessionId) return;
      if (name === 'execution.output') seen.push({ kind: p.stream, text: p.text, at: Date.now() });
      if (name === 'execution.done') seen.push({ kind: 'done', at: Date.now() });
    });
    const r = await sp.sessions.session(sessionId).execute([
      "console.log('one')",
      'await new Promise((resolve) => setTimeout(resolve, 400))',
      "console.error('two')",
      'await new Promise((resolve) => setTimeout(resolve, 400))',
      "require('child_process').spawnSync('echo', ['three'], { stdio: 'inherit' })",
      'undefined',
    ].join('\n'));
    off();
    expect(r.status, r.error?.traceback).toBe('ok');
    expect(r.stdout).toBe('one\nthree\n');
    expect(r.stderr).toBe('two\n');
    expect(seen.filter((s) => s.kind !== 'done').map((s) => s.text).join('')).toBe('one\ntwo\nthree\n');
    const one = seen.find((s) => s.text?.includes('one'));
    const three = seen.find((s) => s.text?.includes('three'));
    expect(seen.findIndex((s) => s.kind === 'done')).toBe(seen.length - 1);
    // 'one' arrived live, long before the last chunk was even written.
    expect(three!.at - one!.at).toBeGreaterThanOrEqual(600);
  });

  it('reports a thrown error with its stack, and keeps the session usable', async () => {
    const r = await sp.sessions.session(sessionId).execute("function f() {\n  throw new TypeError('bad value')\n}\nf()");
    expect(r.status).toBe('error');
    expect(r.error?.name).toBe('TypeError');
    expect(r.error?.value).toBe('bad value');
    expect(r.error?.traceback).toMatch(/at f \(<cell-\d+>:2:\d+\)/);
    expect(r.error?.traceback).not.toContain('/opt/sandpit/agent/'); // no frame of the agent's modules
    const rejected = await sp.sessions.session(sessionId).execute("await Promise.reject(new RangeError('late'))");
    expect(rejected.error).toMatchObject({ name: 'RangeError', value: 'late' });
    expect((await sp.sessions.session(sessionId).execute('x')).result).toBe('21');
  });

  it('cannot break the protocol by printing protocol-looking lines', async () => {
    const fake = JSON.stringify({ type: 'done', id: 'x', status: 'ok', durationMs: 1 });
    const r = await sp.sessions.session(sessionId).execute(`console.log(${JSON.stringify(fake)})\nprocess.stdout.write('{"jsonrpc":"2.0","id":1}\\n')\n7`);
    expect(r.stdout).toContain('"type":"done"');
    expect(r.stdout).toContain('jsonrpc');
    expect(r.result).toBe('7');
  });

  it('lists the files a run creates and keeps them as artifacts', async () => {
    const r = await sp.sessions.session(sessionId).execute("const fs = require('fs')\nfs.mkdirSync('out', { recursive: true })\nfs.writeFileSync('out/hello.txt', 'hello from node')");
    expect(r.status, r.error?.traceback).toBe('ok');
    expect(r.files).toEqual([{ path: 'out/hello.txt', size: 15 }]);
    const artifact = r.artifacts.find((a) => a.path === 'out/hello.txt');
    expect(artifact).toBeDefined();
    expect((await sp.artifacts.get(artifact!.sha256)).content.toString()).toBe('hello from node');
  });
});

/** Attacks from inside a JavaScript sandbox: runaway loops, leftovers, memory bombs, output floods. */
describe('javascript limits and timeouts', () => {
  let sp: TestSandpit;
  beforeAll(async () => {
    requireNodeImage();
    sp = await startTestSandpit({ graceMs: 2_000 });
  });
  afterAll(async () => sp?.cleanup());

  it('interrupts `while (true) {}` at the timeout and keeps the session and its state', async () => {
    const { id } = await newSession(sp, { language: 'javascript' });
    await sp.sessions.session(id).execute("const kept = 'yes'");
    const started = Date.now();
    const r = await sp.sessions.session(id).execute('while (true) {}', { timeoutMs: 2_000 });
    expect(r.status).toBe('timeout');
    expect(r.stateLost).toBe(false);
    expect(r.message).toMatch(/time limit/);
    expect(Date.now() - started).toBeLessThan(2_000 + 2_000 + 1_500);
    expect((await sp.sessions.session(id).execute('kept')).result).toBe("'yes'");
  });

  it('interrupts a pending await at the timeout, keeping state', async () => {
    const { id } = await newSession(sp, { language: 'javascript' });
    await sp.sessions.session(id).execute('let n = 5');
    const r = await sp.sessions.session(id).execute('await new Promise(() => {})', { timeoutMs: 1_500 });
    expect(r.status).toBe('timeout');
    expect(r.stateLost).toBe(false);
    expect((await sp.sessions.session(id).execute('n * 2')).result).toBe('10');
  });

  it('stops code blocked in execSync of a command that keeps forking at the timeout, keeping state', async () => {
    const { id } = await newSession(sp, { language: 'javascript' });
    await sp.sessions.session(id).execute('let m = 7');
    const r = await sp.sessions.session(id).execute(
      "require('child_process').execSync('while :; do sleep 300 & sleep 0.002; done')",
      { timeoutMs: 1_500 },
    );
    expect(r.status).toBe('timeout');
    expect(r.stateLost).toBe(false);
    const after = await sp.sessions.session(id).execute(
      "const fs2 = require('fs');\n[m, fs2.readdirSync('/proc').filter((p) => { try { return /^\\d+$/.test(p) && fs2.readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'sleep' } catch { return false } }).length]",
    );
    expect(after.result).toBe('[ 7, 0 ]');
  });

  it('leaves no process of a timed-out run alive', async () => {
    const { id } = await newSession(sp, { language: 'javascript' });
    const r = await sp.sessions.session(id).execute("require('child_process').spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' })\nwhile (true) {}", { timeoutMs: 1_500 });
    expect(r.status).toBe('timeout');
    const ps = await sp.sessions.session(id).execute([
      "const fs = require('fs')",
      "fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p)).map((p) => { try { return fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim() } catch { return '' } }).sort().join(',')",
    ].join('\n'));
    expect(ps.status, ps.error?.traceback).toBe('ok');
    expect(ps.result).not.toContain('sleep');
  });

  it('stops a background process when its run ends: the next run shows none of its output, and it is gone', async () => {
    const { id } = await newSession(sp, { language: 'javascript' });
    const first = await sp.sessions.session(id).execute(
      // Waits (bounded) until the printer has printed once, not a fixed time a loaded machine can exceed.
      "require('child_process').spawn(process.execPath, ['-e', \"setInterval(() => { console.log('bg-line'); require('fs').writeFileSync('/tmp/bg-printed', '') }, 50)\"], { stdio: 'inherit' })\n" +
        "const deadline = Date.now() + 30000\nwhile (!require('fs').existsSync('/tmp/bg-printed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))\n" +
        'await new Promise((r) => setTimeout(r, 200))',
    );
    expect(first.status, first.error?.traceback).toBe('ok');
    expect(first.stdout).toMatch(/^(bg-line\n)+$/);
    expect(first.message).toMatch(/A process this run left running in the background was stopped when it ended/);
    const second = await sp.sessions.session(id).execute("await new Promise((r) => setTimeout(r, 300))\nconsole.log('second')");
    expect(second.stdout).toBe('second\n');
    expect(second.message).toBeUndefined();
    const ps = await sp.sessions.session(id).execute(
      "const fs = require('fs')\nfs.readdirSync('/proc').filter((n) => { try { return /^\\d+$/.test(n) && fs.readFileSync(`/proc/${n}/cmdline`, 'utf8').includes('bg-line') } catch { return false } })",
    );
    expect(ps.status, ps.error?.traceback).toBe('ok');
    expect(ps.result).toBe('[]');
  });

  it('reports a runaway allocation as oom and the session is usable afterwards', async () => {
    const { id } = await newSession(sp, { language: 'javascript', limits: { memoryMb: 256 } });
    const r = await sp.sessions.session(id).execute('const a = []; while (true) a.push(new Array(1e6).fill(1))', { timeoutMs: 60_000 });
    expect(r.status).toBe('oom');
    expect(r.message).toMatch(/memory limit/);
    const next = await sp.sessions.session(id).execute('1 + 1');
    expect(next.status).toBe('ok');
    expect(next.result).toBe('2');
  });

  it('reports a child process killed for memory as oom while the session keeps its state', async () => {
    const { id } = await newSession(sp, { language: 'javascript', limits: { memoryMb: 256 } });
    await sp.sessions.session(id).execute('const keep = 5');
    const r = await sp.sessions.session(id).execute(
      "require('child_process').spawnSync('node', ['-e', 'const a = []; while (true) a.push(new Array(1e6).fill(1))']).status",
      { timeoutMs: 60_000 },
    );
    expect(r.status).toBe('oom');
    expect(r.stateLost).toBe(false);
    expect((await sp.sessions.session(id).execute('keep')).result).toBe('5');
  });

  it('truncates an endless console.log with a visible marker and bounded host memory', async () => {
    const { id } = await newSession(sp, { language: 'javascript', limits: { outputBytes: 64 * 1024 } });
    const before = process.memoryUsage().rss;
    const r = await sp.sessions.session(id).execute("while (true) console.log('x'.repeat(1000))", { timeoutMs: 3_000 });
    const grown = process.memoryUsage().rss - before;
    expect(r.status).toBe('timeout');
    expect(r.truncated.stdout).toBe(true);
    expect(r.stdout).toMatch(/\[output truncated: \d+ more bytes of stdout not shown \(limit 64 KiB per stream\)\]/);
    expect(r.stdout.length).toBeLessThan(64 * 1024 + 500);
    expect(grown).toBeLessThan(200 * 1024 * 1024);
    expect((await sp.sessions.session(id).execute("'still here'")).result).toBe("'still here'");
  });
});
