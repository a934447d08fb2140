// Unit tests for the Python agent (executor-image/agents/python/agent.py), run with the host's python3
// (override with SANDPIT_TEST_PYTHON). They speak the JSON-lines protocol of ../PROTOCOL.md.
import { spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, expectUnconnectedExit, findProcess, ignoredSignals, isGone, shape, sleep, spawnAgent, waitUntil, WAIT_MS } from '../test-support/agent-client';
import type { JsonLinesClient, SpawnedAgent } from '../test-support/agent-client';
import { describeWorkspaceFs, onSmallTmpfs } from '../test-support/workspace-fs-suite';

const AGENT = join(import.meta.dirname, 'agent.py');
const PYTHON = process.env.SANDPIT_TEST_PYTHON ?? 'python3';

function startStdioAgent(env: Record<string, string> = {}, command: string[] = [PYTHON, AGENT]): SpawnedAgent {
  return spawnAgent(command, { workspacePrefix: 'sandpit-agent-ws-', env });
}

function waitForExit(proc: ChildProcessWithoutNullStreams, timeoutMs = WAIT_MS): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (proc.exitCode !== null) return resolve(proc.exitCode);
    const timer = setTimeout(() => reject(new Error('agent did not exit')), timeoutMs);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe('python agent over stdio', () => {
  let agent: SpawnedAgent;
  let client: JsonLinesClient;

  beforeAll(() => {
    agent = startStdioAgent();
    client = agent.client;
  });

  afterAll(() => {
    client.checkFraming();
    expect(agent.stderr()).toBe(''); // the agent logged no internal failure
    agent.stop();
  });

  it('answers hello', async () => {
    const hello = await client.hello();
    expect(hello).toMatchObject({ language: 'python', protocol: 1, pid: agent.proc.pid });
    expect(hello.version).toMatch(/^3\.\d+\.\d+/);
  });

  it('keeps state between executions and returns the last expression', async () => {
    expect((await client.run('x = 41')).done).toMatchObject({ status: 'ok', straysKilled: 0 });
    const run = await client.run('x + 1');
    expect(run.result).toBe('42');
    expect((await client.run('_ * 2')).result).toBe('84');
    expect((await client.run('None')).result).toBeUndefined();
    expect((await client.run('x;')).result).toBeUndefined(); // a trailing ';' hides the value
    expect(run.done.durationMs).toEqual(expect.any(Number));
  });

  it('streams output as it is written, all of it before done', async () => {
    const run = await client.run("print('first', flush=True)\nimport time\ntime.sleep(0.3)\nprint('second')");
    expect(run.stdout).toBe('first\nsecond\n');
    const at = (word: string): number => run.messages.find((r) => String(r.msg.text).includes(word))?.at ?? NaN;
    const doneAt = run.messages.at(-1)?.at ?? NaN;
    expect(at('second') - at('first')).toBeGreaterThanOrEqual(250);
    expect(at('second')).toBeLessThanOrEqual(doneAt);
    expect(run.messages.at(-1)?.msg.type).toBe('done');
  });

  it('captures stderr and the output of subprocesses at the fd level', async () => {
    const run = await client.run(
      "import os, sys, subprocess\nprint('to stderr', file=sys.stderr)\nos.system('echo from-shell')\n" +
        "subprocess.run(['sh', '-c', 'echo from-sub; echo sub-err >&2'])\nos.write(1, b'raw fd write\\n')\nNone",
    );
    expect(run.stdout).toBe('from-shell\nfrom-sub\nraw fd write\n');
    expect(run.stderr).toBe('to stderr\nsub-err\n');
  });

  it('decodes UTF-8 split across writes and replaces invalid bytes', async () => {
    const run = await client.run(
      "import os, time\ndata = 'h\u00e9llo \u20ac'.encode()\nfor i in range(len(data)):\n" +
        "    os.write(1, data[i:i + 1]); time.sleep(0.01)\nos.write(1, b'\\xff!\\n')",
    );
    expect(run.stdout).toBe('h\u00e9llo \u20ac\ufffd!\n');
  });

  it('reports exceptions with the user code in the traceback and no agent frames', async () => {
    const run = await client.run('def f():\n    return 1 / 0\n\nf()');
    expect(run.done.status).toBe('error');
    expect(run.error).toMatchObject({ name: 'ZeroDivisionError', value: 'division by zero' });
    const tb = run.error?.traceback as string;
    expect(tb).toContain('return 1 / 0');
    expect(tb).toMatch(/File "<cell-\d+>", line 2, in f/);
    expect(tb).not.toContain('agent.py');
    expect(tb).not.toContain('sandpit_agent');
    expect(tb).toMatch(/ZeroDivisionError: division by zero\n$/);
  });

  it('reports syntax errors', async () => {
    const run = await client.run('x = (');
    expect(run.done.status).toBe('error');
    expect(run.error?.name).toBe('SyntaxError');
    expect(run.error?.traceback).toContain('<cell-');
    expect(run.error?.traceback).not.toContain('agent.py');
    expect(run.error?.traceback).not.toContain('sandpit_agent');
    expect((await client.run('x')).result).toBe('41'); // state kept
  });

  it('reports an exception raised by the repr of the result', async () => {
    const run = await client.run("class R:\n    def __repr__(self):\n        raise ValueError('bad repr')\nR()");
    expect(run.done.status).toBe('error');
    expect(run.error).toMatchObject({ name: 'ValueError', value: 'bad repr' });
    expect(run.error?.traceback).not.toContain('agent.py');
    expect(run.error?.traceback).not.toContain('sandpit_agent');
  });

  it('supports top-level await', async () => {
    const run = await client.run('import asyncio\nawait asyncio.sleep(0.01)\nawait asyncio.sleep(0, result=7)');
    expect(run.result).toBe('7');
  });

  it('interrupts a busy loop, keeping state', async () => {
    const id = client.start("print('spinning', flush=True)\ny = 1\nwhile True:\n    pass");
    await client.waitFor((m) => m.id === id && m.type === 'stream');
    client.send({ type: 'interrupt', id });
    const run = await client.collect(id);
    expect(run.done.status).toBe('interrupted');
    expect(run.error?.name).toBe('KeyboardInterrupt');
    expect(run.error?.traceback).not.toContain('agent.py');
    expect(run.error?.traceback).not.toContain('sandpit_agent');
    expect((await client.run('(x, y)')).result).toBe('(41, 1)');
  });

  it('interrupts a blocking sleep', async () => {
    const id = client.start("import time\nprint('sleeping', flush=True)\ntime.sleep(100)");
    await client.waitFor((m) => m.id === id && m.type === 'stream');
    const sent = performance.now();
    client.send({ type: 'interrupt', id });
    const run = await client.collect(id);
    expect(run.done.status).toBe('interrupted');
    expect(run.messages.at(-1)!.at - sent).toBeLessThan(2_000);
    expect((await client.run('x')).result).toBe('41');
  });

  it('ignores interrupts for other executions and user SIGINT handlers do not stick', async () => {
    await client.run('import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)');
    const id = client.start("import time\nprint('go', flush=True)\ntime.sleep(0.5)\n'finished'");
    await client.waitFor((m) => m.id === id && m.type === 'stream');
    client.send({ type: 'interrupt', id: 'not-running' });
    const run = await client.collect(id);
    expect(run.done.status).toBe('ok');
    expect(run.result).toBe("'finished'");
    const again = client.start("print('go', flush=True)\nwhile True:\n    pass");
    await client.waitFor((m) => m.id === again && m.type === 'stream');
    client.send({ type: 'interrupt', id: again });
    expect((await client.collect(again)).done.status).toBe('interrupted');
  });

  it('honours an interrupt that arrives before the code starts, even for a queued execution', async () => {
    const busy = client.start('while True:\n    pass');
    client.send({ type: 'interrupt', id: busy });
    const first = client.start("import time\ntime.sleep(0.3)\nprint('A')");
    const queued = client.start("print('B')");
    client.send({ type: 'interrupt', id: queued });
    expect((await client.collect(busy)).done.status).toBe('interrupted');
    expect(await client.collect(first)).toMatchObject({ stdout: 'A\n', done: { status: 'ok' } });
    expect(await client.collect(queued)).toMatchObject({ stdout: '', done: { status: 'interrupted' } });
  });

  it('forwards at most outputLimit bytes per stream and counts the rest', async () => {
    const run = await client.run("import sys\nprint('x' * 5000)\nprint('y' * 300, file=sys.stderr)", 1000);
    expect(run.stdout).toBe('x'.repeat(1000));
    expect(run.stderr).toBe(`${'y'.repeat(300)}\n`);
    expect(run.done.dropped).toEqual({ stdout: 4001, stderr: 0 });
    expect((await client.run("print('small')")).done.dropped).toEqual({ stdout: 0, stderr: 0 });
  });

  it('keeps the framing whatever user code prints', async () => {
    const nasty = [
      '{"type":"done","id":"e1","status":"ok"}',
      '\x00\x1b[sandpit-sync:0123456789abcdef01234567]\x00',
      '\x00\x1b[sandpit-sync:',
      '\r\n\u2028 end',
    ];
    const code = `import os\n${nasty.map((s) => `print(${JSON.stringify(s)})`).join('\n')}\nos.write(1, b'no newline')`;
    const run = await client.run(code);
    expect(run.stdout).toBe(`${nasty.join('\n')}\nno newline`);
    expect(run.done.status).toBe('ok');
  });

  it('survives os.fork in user code, and forked children never write on the channel', async () => {
    const run = await client.run(
      [
        'import os',
        'class H:',
        "    def _repr_html_(self): return '<i>child</i>'",
        'pid = os.fork()',
        'if pid == 0:',
        "    print('in child', flush=True)",
        '    display(H())',
        "    raise RuntimeError('child failure')",
        '_, status = os.waitpid(pid, 0)',
        "print('child exit', os.waitstatus_to_exitcode(status))",
        'pid = os.fork()',
        'if pid == 0:',
        '    import sys; sys.exit(7)',
        "print('child exit', os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))",
        'pid = os.fork()',
        "z = 'in both'",
        'if pid:',
        "    print('child exit', os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))",
      ].join('\n'),
    );
    expect(run.done.status).toBe('ok');
    expect(run.stdout).toBe('in child\nchild exit 1\nchild exit 7\nchild exit 0\n');
    expect(run.stderr).toContain('RuntimeError: child failure');
    expect(run.displays).toEqual([]);
    expect((await client.run('z')).result).toBe("'in both'");
  });

  it('lists files created or changed under the workspace', async () => {
    const first = await client.run(
      "import os\nos.makedirs('out/sub', exist_ok=True)\nopen('out/sub/a.txt', 'w').write('hello')\n" +
        "os.symlink('out/sub/a.txt', 'link.txt')\nos.mkfifo('fifo')\nos.symlink('/etc', 'etc-link')\nNone",
    );
    expect(first.done.files).toEqual([{ path: 'out/sub/a.txt', size: 5 }]);
    expect(first.done.filesTruncated).toBe(false);
    writeFileSync(join(agent.workspace, 'uploaded.txt'), 'from the host');
    expect((await client.run('pass')).done.files).toEqual([]);
    const second = await client.run("open('out/sub/a.txt', 'a').write('!!')\nopen('b.bin', 'wb').write(b'1')");
    expect(second.done.files).toEqual([
      { path: 'b.bin', size: 1 },
      { path: 'out/sub/a.txt', size: 7 },
    ]);
  });

  it('does not exit on sys.exit()', async () => {
    const run = await client.run('import sys\nsys.exit(3)');
    expect(run.done.status).toBe('error');
    expect(run.error).toMatchObject({ name: 'SystemExit', value: '3' });
    expect((await client.run('exit()')).error?.name).toBe('SystemExit');
    expect((await client.run('x')).result).toBe('41');
  });

  it('sends rich output from display(), in order with the text output', async () => {
    const run = await client.run(
      [
        'class H:',
        "    def _repr_html_(self): return '<b>hi</b>'",
        'class P:',
        "    def _repr_png_(self): return b'\\x89PNG fake'",
        'class S:',
        "    def _repr_svg_(self): return '<svg/>'",
        "print('before')",
        'display(H(), P())',
        "print('between')",
        'display(S(), [1, 2])',
      ].join('\n'),
    );
    expect(run.done.status).toBe('ok');
    expect(shape(run)).toEqual(['stream', 'display', 'display', 'stream', 'display', 'stream', 'done']);
    expect(run.displays).toEqual([
      { type: 'display', id: run.id, mime: 'text/html', data: '<b>hi</b>', encoding: 'utf8' },
      {
        type: 'display',
        id: run.id,
        mime: 'image/png',
        data: Buffer.from('\x89PNG fake', 'latin1').toString('base64'),
        encoding: 'base64',
      },
      { type: 'display', id: run.id, mime: 'image/svg+xml', data: '<svg/>', encoding: 'utf8' },
    ]);
    expect(run.stdout).toBe('before\nbetween\n[1, 2]\n');
  });

  it('restores fds and sys.stdout that user code closed', async () => {
    await client.run('import sys, os\nsys.stdout.close()\nos.close(2)');
    const run = await client.run("import sys\nprint('out again')\nprint('err again', file=sys.stderr)");
    expect(run.stdout).toBe('out again\n');
    expect(run.stderr).toBe('err again\n');
  });

});

describeWorkspaceFs('python agent: workspace files (fs requests)', {
  start: () => startStdioAgent(),
  startOnSmallTmpfs: () => startStdioAgent({}, onSmallTmpfs([PYTHON, AGENT])),
  busyCode: "print('busy', flush=True)\nwhile True:\n    pass",
});

describe('python agent in bash mode (SANDPIT_LANGUAGE=bash)', () => {
  let agent: SpawnedAgent;
  let client: JsonLinesClient;

  beforeAll(() => {
    agent = startStdioAgent({ SANDPIT_LANGUAGE: 'bash' });
    client = agent.client;
  });

  afterAll(() => {
    client.checkFraming();
    expect(agent.stderr()).toBe('');
    agent.stop();
  });

  it('answers hello as bash', async () => {
    const hello = await client.hello();
    expect(hello).toMatchObject({ language: 'bash', protocol: 1, pid: agent.proc.pid });
    expect(hello.version).toMatch(/^\d+\.\d+/);
  });

  it('runs each execution as a one-shot bash -c in the workspace, with its exit code in done', async () => {
    const ok = await client.run('echo "out $((1 + 1))"; echo err >&2; pwd; export GONE=1');
    expect(ok.stdout).toBe(`out 2\n${realpathSync(agent.workspace)}\n`);
    expect(ok.stderr).toBe('err\n');
    expect(ok.done).toMatchObject({ status: 'ok', exitCode: 0 });
    expect(ok.result).toBeUndefined();
    const failed = await client.run('echo "[${GONE:-unset}]"; exit 7');
    expect(failed.stdout).toBe('[unset]\n');
    expect(failed.done).toMatchObject({ status: 'error', exitCode: 7 });
    expect(failed.error).toMatchObject({ name: 'CommandFailed', value: 'exit code 7' });
    expect(shape(failed)).toEqual(['stream', 'error', 'done']);
    expect((await client.run('kill -TERM $$')).done).toMatchObject({ status: 'error', exitCode: 143 });
  });

  it('lists the files a command creates', async () => {
    const run = await client.run('mkdir -p d && printf abc > d/f.txt');
    expect(run.done.files).toEqual([{ path: 'd/f.txt', size: 3 }]);
  });

  it('kills the command and its process group on interrupt', async () => {
    const id = client.start('trap "" INT; (sleep 100; echo late) & echo started; while :; do :; done');
    await client.waitFor((m) => m.id === id && m.type === 'stream');
    const sent = performance.now();
    client.send({ type: 'interrupt', id });
    const run = await client.collect(id);
    expect(run.done.status).toBe('interrupted');
    expect(run.done.exitCode).toBeUndefined();
    expect(run.error).toBeUndefined();
    expect(run.messages.at(-1)!.at - sent).toBeLessThan(2_000);
    expect((await client.run('echo next')).stdout).toBe('next\n');
  });
});

describe('python agent with a stand-in matplotlib', () => {
  // Real matplotlib is exercised by the Docker tests; this checks the import hook, plt.show() and the
  // end-of-execution figure flush against a tiny fake `matplotlib.pyplot` on PYTHONPATH.
  let agent: SpawnedAgent;
  const fake = mkdtempSync(join(tmpdir(), 'sandpit-fake-mpl-'));

  beforeAll(() => {
    mkdirSync(join(fake, 'matplotlib'));
    writeFileSync(join(fake, 'matplotlib', '__init__.py'), '');
    writeFileSync(
      join(fake, 'matplotlib', 'pyplot.py'),
      [
        '_figs = {}',
        'class Figure:',
        '    def __init__(self, num): self.num = num',
        '    def savefig(self, buf, format=None, bbox_inches=None):',
        "        assert format == 'png' and bbox_inches == 'tight'",
        "        buf.write(b'PNG%d' % self.num)",
        'def figure(num=None):',
        '    num = num or max(_figs, default=0) + 1',
        '    return _figs.setdefault(num, Figure(num))',
        'def get_fignums(): return sorted(_figs)',
        'def close(which):',
        "    if which == 'all': _figs.clear()",
        'def show(*args, **kwargs):',
        "    raise AssertionError('the original show() must be replaced')",
      ].join('\n'),
    );
    agent = startStdioAgent({ PYTHONPATH: fake });
  });

  afterAll(() => {
    agent.client.checkFraming();
    agent.stop();
    rmSync(fake, { recursive: true, force: true });
  });

  it('never imports matplotlib itself', async () => {
    expect((await agent.client.run("import sys\n'matplotlib' in sys.modules")).result).toBe('False');
  });

  it('sends figures on plt.show() and at the end of the execution', async () => {
    const png = (n: number): string => Buffer.from(`PNG${n}`).toString('base64');
    const run = await agent.client.run(
      "import matplotlib.pyplot as plt\nplt.figure()\nprint('one')\nplt.show()\nprint('two')\nplt.figure()\nplt.figure()\nNone",
    );
    expect(run.done.status).toBe('ok');
    expect(shape(run)).toEqual(['stream', 'display', 'stream', 'display', 'display', 'done']);
    expect(run.displays.map((d) => [d.mime, d.data, d.encoding])).toEqual([
      ['image/png', png(1), 'base64'],
      ['image/png', png(1), 'base64'],
      ['image/png', png(2), 'base64'],
    ]);
    const again = await agent.client.run('plt.get_fignums()');
    expect(again.result).toBe('[]');
    expect(again.displays).toEqual([]);
    expect((await agent.client.run('display(plt.figure(5))')).displays.map((d) => d.data)).toEqual([png(5), png(5)]);
  });
});

describe('python agent lifecycle', () => {
  it('exits when its stdin channel ends, after sending what it has queued', async () => {
    const agent = startStdioAgent();
    try {
      agent.client.send({ type: 'hello', id: 'last-words' });
      agent.proc.stdin.end(); // replies already queued are still sent
      await agent.client.waitFor((m) => m.type === 'hello' && m.id === 'last-words');
      expect(await waitForExit(agent.proc)).toBe(0);
    } finally {
      agent.stop();
    }
  });

  it('attributes background output to the running execution and never sends it after done', async () => {
    const agent = startStdioAgent();
    const client = agent.client;
    try {
      const code =
        "import threading, time, os\ndef tick():\n    while True:\n        print('tick'); os.write(2, b'tock\\n'); time.sleep(0.002)\n" +
        'threading.Thread(target=tick, daemon=True).start()\ntime.sleep(0.05)';
      expect((await client.run(code)).stdout).toMatch(/^(tick\n)+$/);
      for (let i = 0; i < 20; i++) {
        const run = await client.run(`print('cell ${i}')\nimport time\ntime.sleep(0.01)`);
        expect(run.stdout).toContain(`cell ${i}`); // print() from two threads may interleave
        expect(run.stderr).toMatch(/^(tock\n)*$/);
      }
      await sleep(100); // idle output is discarded, not sent
      client.checkFraming();
      expect(client.received.filter((r) => r.msg.id === undefined || r.msg.id === null)).toEqual([]);
    } finally {
      agent.stop();
    }
  });

  it('listens on a unix socket, one connection at a time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandpit-agent-sock-'));
    const path = join(dir, 'a.sock');
    writeFileSync(path, 'stale');
    const agent = startStdioAgent({ SANDPIT_CHANNEL: `socket:${path}` });
    const sockets: Socket[] = [];
    const connect = (): Promise<JsonLinesClient> => connectClient(path, sockets);
    try {
      await waitUntil(() => existsSync(path) && statSync(path).isSocket(), 'socket did not appear');
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const first = await connect();
      expect((await first.hello()).language).toBe('python');
      const run = await first.run("v = 'kept'\nprint('over the socket')");
      expect(run.stdout).toBe('over the socket\n');
      const second = await connect();
      await second.hello();
      await first.waitFor(() => false, WAIT_MS).catch((err: Error) => expect(err.message).toMatch(/closed/));
      expect((await second.run('v')).result).toBe("'kept'");
      second.checkFraming();
      expect(agent.stderr()).toBe('');
    } finally {
      for (const socket of sockets) socket.destroy();
      agent.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ends once no host has been connected for SANDPIT_UNCONNECTED_EXIT_S seconds, and not while one is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandpit-agent-sock-'));
    const path = join(dir, 'a.sock');
    const agent = startStdioAgent({ SANDPIT_CHANNEL: `socket:${path}`, SANDPIT_UNCONNECTED_EXIT_S: '1' });
    try {
      await expectUnconnectedExit(path, () => agent.proc.exitCode !== null, "v = 'kept'", 'v', "'kept'");
      expect(agent.proc.exitCode).toBe(0);
    } finally {
      agent.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  // kill(-1, SIGKILL) is only safe in a PID namespace of its own: run the agent under `unshare` (as init's
  // child, like under the container's init). Without unprivileged user namespaces this is reported as skipped.
  const unshare = ['unshare', '--user', '--map-root-user', '--pid', '--fork', '--mount-proc'];
  const canUnshare = spawnSync(unshare[0]!, [...unshare.slice(1), 'true']).status === 0;

  const inNamespace = (env: Record<string, string> = {}): SpawnedAgent =>
    startStdioAgent({ SANDPIT_KILL_STRAYS: '1', ...env }, [...unshare, 'sh', '-c', `${PYTHON} ${AGENT}; exit $?`]);

  it.skipIf(!canUnshare)('kills every process an execution leaves behind when it ends, interrupted or not (in a PID namespace; skipped without unshare)', async () => {
    const agent = inNamespace();
    const client = agent.client;
    try {
      // Safety first: only go on if the agent really is in its own PID namespace, under its init.
      expect(
        (await client.run('import os\n(os.getppid(), len([p for p in os.listdir("/proc") if p.isdigit()]))')).result,
      ).toBe('(1, 2)');
      const alive =
        "def alive():\n    out = []\n    for n in os.listdir('/proc'):\n        if n.isdigit() and int(n) not in (1, os.getpid()):\n" +
        "            try: st = open('/proc/%s/stat' % n).read()\n            except OSError: continue\n" +
        "            if st[st.rfind(')') + 2] != 'Z': out.append(n)\n    return out";
      const setup = await client.run(
        `${alive}\nimport subprocess\np = subprocess.Popen(['sleep', '100'])\nsubprocess.run(['sh', '-c', 'sleep 100 &'])\nlen(alive())`,
      );
      expect(setup.result).toBe('2');
      expect(setup.done.straysKilled).toBe(2); // background processes end with their execution
      expect(await client.run('alive()')).toMatchObject({ result: '[]', done: { straysKilled: 0 } });
      expect((await client.run('p.poll()')).result).toBe('0'); // reaped by the agent: Popen sees ECHILD
      const id = client.start("subprocess.Popen(['sleep', '100'])\nimport time\nprint('sleeping', flush=True)\ntime.sleep(100)");
      await client.waitFor((m) => m.id === id && m.type === 'stream');
      client.send({ type: 'interrupt', id });
      const run = await client.collect(id);
      expect(run.done).toMatchObject({ status: 'interrupted', straysKilled: 1 });
      expect((await client.run('alive()')).result).toBe('[]');
      client.checkFraming();
    } finally {
      agent.stop();
    }
  });

  it.skipIf(!canUnshare)('interrupts a subprocess that keeps forking, orphans and all (in a PID namespace; skipped without unshare)', async () => {
    const agent = inNamespace();
    const client = agent.client;
    try {
      expect((await client.run('import os\nos.getppid()')).result).toBe('1');
      const id = client.start(
        "import subprocess\nprint('forking', flush=True)\nsubprocess.run('while :; do sleep 30 & sleep 0.002; done', shell=True, capture_output=True)",
      );
      await client.waitFor((m) => m.id === id && m.type === 'stream');
      await sleep(300); // a tree of some hundred processes, growing
      client.send({ type: 'interrupt', id });
      const run = await client.collect(id);
      expect(run.done.status).toBe('interrupted');
      const after = await client.run(
        "import os\nn = 0\nfor p in os.listdir('/proc'):\n    if p.isdigit() and int(p) not in (1, os.getpid()):\n        try: st = open('/proc/%s/stat' % p).read()\n        except OSError: continue\n        n += st[st.rfind(')') + 2] != 'Z'\nn",
      );
      expect(after.result).toBe('0');
      client.checkFraming();
    } finally {
      agent.stop();
    }
  });

  it.skipIf(!canUnshare)('shows none of a background printer in the next execution (in a PID namespace; skipped without unshare)', async () => {
    const agent = inNamespace();
    const client = agent.client;
    try {
      expect((await client.run('import os\nos.getppid()')).result).toBe('1');
      // The run waits (bounded) until the printer has printed at least once: on a loaded machine a new
      // interpreter can take longer to start than any fixed sleep.
      const printer = [
        'import os, subprocess, sys, time',
        "subprocess.Popen([sys.executable, '-c', \"import time\\nwhile True:\\n    print('bg-line', flush=True)\\n    open('bg-printed', 'w').close()\\n    time.sleep(0.05)\"])",
        'deadline = time.monotonic() + 30',
        "while not os.path.exists('bg-printed') and time.monotonic() < deadline:",
        '    time.sleep(0.02)',
        'time.sleep(0.2)',
      ].join('\n');
      const first = await client.run(printer);
      expect(first.stdout).toMatch(/^(bg-line\n)+$/);
      expect(first.done.straysKilled).toBe(1);
      const second = await client.run("import time\ntime.sleep(0.3)\nprint('second')");
      expect(second.stdout).toBe('second\n');
      expect(second.done.straysKilled).toBe(0);
      client.checkFraming();
    } finally {
      agent.stop();
    }
  });

  it.skipIf(!canUnshare)('still runs subprocesses, multiprocessing pools and threads across executions (in a PID namespace; skipped without unshare)', async () => {
    const agent = inNamespace();
    const client = agent.client;
    try {
      expect((await client.run('import os\nos.getppid()')).result).toBe('1');
      const run = await client.run("import subprocess\nprint(subprocess.run(['sh', '-c', 'echo hi; exit 4']).returncode)");
      expect(run).toMatchObject({ stdout: 'hi\n4\n', done: { status: 'ok', straysKilled: 0 } });
      // a child that ended by itself keeps its exit status for a later wait()
      const popen = await client.run("import time\np = subprocess.Popen(['sh', '-c', 'echo from-child; exit 3'])\ntime.sleep(0.3)");
      expect(popen).toMatchObject({ stdout: 'from-child\n', done: { straysKilled: 0 } });
      expect((await client.run('p.wait()')).result).toBe('3');
      const pool = 'from multiprocessing import Pool\nwith Pool(2) as pool:\n    got = pool.map(abs, [-1, -2, -3])\ngot';
      for (let i = 0; i < 2; i++) expect(await client.run(pool)).toMatchObject({ result: '[1, 2, 3]', done: { status: 'ok' } });
      // the fork server (Python 3.14's default) and its resource tracker are killed after each execution: the next use starts new ones
      const forkserver =
        "import multiprocessing\nctx = multiprocessing.get_context('forkserver')\nwith ctx.Pool(1) as fpool:\n    got = fpool.map(abs, [-4])\ngot";
      const first = await client.run(forkserver);
      expect(first).toMatchObject({ result: '[4]', done: { status: 'ok' } });
      expect(first.done.straysKilled).toBeGreaterThanOrEqual(1);
      const again = await client.run(forkserver);
      expect(again).toMatchObject({ result: '[4]', done: { status: 'ok' } });
      expect(again.stderr).not.toMatch(/ChildProcessError|died unexpectedly/);
      // threads are not processes: they go on
      await client.run('import threading\nt = threading.Thread(target=time.sleep, args=(1,), daemon=True)\nt.start()');
      expect((await client.run('t.is_alive()')).result).toBe('True');
      client.checkFraming();
    } finally {
      agent.stop();
    }
  });

  it.skipIf(!canUnshare)('reaps a process that ignores SIGINT, SIGTERM and SIGHUP, started between executions (in a PID namespace; skipped without unshare)', async () => {
    const agent = inNamespace();
    const client = agent.client;
    const seconds = `${4000 + Math.floor(Math.random() * 1000)}.25`;
    try {
      expect((await client.run('import os\nos.getppid()')).result).toBe('1');
      const later = await client.run(
        `import subprocess, threading\nthreading.Timer(0.3, lambda: subprocess.Popen(['sh', '-c', 'trap "" INT TERM HUP; exec sleep ${seconds}'])).start()`,
      );
      expect(later.done.straysKilled).toBe(0); // it does not exist yet
      let pid = 0;
      await waitUntil(() => (pid = findProcess(['sleep', seconds])) > 0, 'the stubborn process did not start');
      expect(ignoredSignals(pid)).toEqual(expect.arrayContaining([1, 2, 15]));
      expect(await client.reap()).toMatchObject({ type: 'reaped', killed: 1 });
      await waitUntil(() => isGone(pid), 'the stubborn process survived reap');
      expect(await client.reap()).toMatchObject({ type: 'reaped', killed: 0 });
      expect((await client.run('1 + 1')).result).toBe('2'); // the agent itself goes on
    } finally {
      agent.stop();
    }
  });

  it.skipIf(!canUnshare)('stops what a bash command leaves running, even outside its process group (in a PID namespace; skipped without unshare)', async () => {
    const agent = inNamespace({ SANDPIT_LANGUAGE: 'bash' });
    const client = agent.client;
    try {
      const first = await client.run("setsid sh -c 'while :; do echo bg-line; sleep 0.05; done' & sleep 0.4");
      expect(first.stdout).toMatch(/^(bg-line\n)+$/);
      expect(first.done.straysKilled).toBeGreaterThanOrEqual(1);
      const second = await client.run('sleep 0.3; echo second');
      expect(second.stdout).toBe('second\n');
      expect(second.done.straysKilled).toBe(0);
    } finally {
      agent.stop();
    }
  });

  it.skipIf(!canUnshare)('kills the strays of an interrupted execution whose code caught the interrupt and returned (in a PID namespace; skipped without unshare)', async () => {
    const agent = inNamespace();
    const client = agent.client;
    try {
      expect((await client.run('import os\nos.getppid()')).result).toBe('1'); // in its own PID namespace, under its init
      const id = client.start(
        "import subprocess, time\nsubprocess.Popen(['sleep', '1000'])\ntry:\n    print('waiting', flush=True)\n    time.sleep(100)\nexcept KeyboardInterrupt:\n    pass\n'returned'",
      );
      await client.waitFor((m) => m.id === id && m.type === 'stream');
      client.send({ type: 'interrupt', id });
      const run = await client.collect(id);
      expect(run.result).toBe("'returned'");
      expect(run.done).toMatchObject({ status: 'ok', straysKilled: 1 });
      const left = await client.run("import os\nsorted(open(f'/proc/{p}/comm').read().strip() for p in os.listdir('/proc') if p.isdigit())");
      expect(left.result).not.toContain('sleep');
      client.checkFraming();
    } finally {
      agent.stop();
    }
  });
});
