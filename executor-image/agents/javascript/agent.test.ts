// Unit tests for the JavaScript agent (executor-image/agents/javascript/, entry main.js), run with the Node that
// runs vitest (override with SANDPIT_TEST_NODE). They speak the JSON-lines protocol of ../PROTOCOL.md.
//
// In stdio mode the agent needs stdin/stdout it can re-open through /proc/self/fd (pipes, as under Docker);
// Node's child_process gives socketpairs, so the agent runs behind `cat` relays in a small shell pipeline:
// its stdin, stdout and stderr are real pipes, and its exit status is reported on stderr.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  expectUnconnectedExit,
  findProcess,
  ignoredSignals,
  isGone,
  shape,
  sleep,
  spawnAgent,
  waitUntil,
  WAIT_MS,
} from '../test-support/agent-client';
import type { JsonLinesClient, SpawnedAgent } from '../test-support/agent-client';
import { describeWorkspaceFs, onSmallTmpfs } from '../test-support/workspace-fs-suite';

const AGENT_DIR = import.meta.dirname;
const AGENT = join(AGENT_DIR, 'main.js');
const NODE = process.env.SANDPIT_TEST_NODE ?? process.execPath;
/** The agent's modules (what the image copies): none of them may show in a traceback. */
const AGENT_MODULES = readdirSync(AGENT_DIR).filter((f) => f.endsWith('.js'));

function expectNoAgentFrames(traceback: unknown): void {
  expect(typeof traceback).toBe('string');
  expect(traceback).not.toContain(AGENT_DIR + sep);
  for (const file of AGENT_MODULES) expect(traceback).not.toContain(file);
}

interface Agent extends SpawnedAgent {
  /** What the agent wrote on its stderr (its own diagnostics), without the harness's exit line. */
  stderr: () => string;
  /** The agent's exit status once it has exited (reported by the harness). */
  exitStatus: () => number | undefined;
}

const EXIT_LINE = /^sandpit-test: agent exited (\d+)\n/m;

/**
 * Starts `command` (default: node main.js) with real pipes for stdin/stdout/stderr (see the header).
 * `$@` is the command; fd 3 is the outer stdout pipe, fd 4 the stderr pipe.
 */
function startAgent(env: Record<string, string> = {}, command: string[] = [NODE, AGENT]): Agent {
  const script =
    '{ cat | { "$@" 2>&4 >&3 3>&- 4>&-; echo "sandpit-test: agent exited $?" >&4; } 4>&1 | cat >&2; } 3>&1 | cat';
  // detached: stop() kills its whole process group (the shell, the relays and the agent)
  const agent = spawnAgent(['sh', '-c', script, 'sh', ...command], {
    workspacePrefix: 'sandpit-js-agent-ws-',
    env: { SANDPIT_KILL_STRAYS: undefined, NODE_OPTIONS: undefined, ...env },
    detached: true,
  });
  return {
    ...agent,
    stderr: () => agent.stderr().replace(EXIT_LINE, ''),
    exitStatus: () => {
      const m = EXIT_LINE.exec(agent.stderr());
      return m ? Number(m[1]) : undefined;
    },
  };
}

describe('javascript agent modules', () => {
  it('require only Node built-ins and each other (the image copies just their directory)', () => {
    expect(AGENT_MODULES).toContain('main.js');
    expect(AGENT_MODULES).toContain('io-thread.js');
    for (const file of AGENT_MODULES) {
      const src = readFileSync(join(AGENT_DIR, file), 'utf8');
      for (const [, spec] of src.matchAll(/require\('([^']+)'\)/g)) {
        if (spec!.startsWith('./')) expect(AGENT_MODULES, `${file} requires ${spec}`).toContain(`${spec!.slice(2)}.js`);
        else expect(isBuiltin(spec!), `${file} requires ${spec}`).toBe(true);
      }
    }
  });

  it('can all be required without side effects: stdio untouched, no listener, no thread, no timer', () => {
    // The agent re-opens stdin/stdout before anything touches stdio: no module may create process.stdout,
    // process.stderr or process.stdin (or start anything) when it is loaded.
    const probe = `
      const touched = [];
      for (const name of ['stdout', 'stderr', 'stdin'])
        Object.defineProperty(process, name, { configurable: true, get() { touched.push(name); } });
      const exit = process.exit;
      const listeners = () => ['SIGINT', 'uncaughtException', 'unhandledRejection'].map((e) => process.listenerCount(e));
      const before = listeners();
      for (const file of ${JSON.stringify(AGENT_MODULES)}) require(${JSON.stringify(AGENT_DIR)} + '/' + file);
      require('fs').writeSync(1, JSON.stringify({
        touched,
        listeners: listeners().map((n, i) => n - before[i]),
        exitPatched: process.exit !== exit,
        resources: process.getActiveResourcesInfo(),
      }));`;
    const r = spawnSync(NODE, ['-e', probe], { encoding: 'utf8', timeout: WAIT_MS });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ touched: [], listeners: [0, 0, 0], exitPatched: false, resources: [] });
    expect(r.status).toBe(0);
  });
});

describe('javascript agent: source analysis', () => {
  const { analyze, asyncSource } = createRequire(import.meta.url)(join(AGENT_DIR, 'cell-compiler.js')) as {
    analyze: (src: string) => { script: string; hoisted: string[]; hasAwait: boolean };
    asyncSource: (src: string, analysis: unknown, withValue: boolean) => string;
  };

  it('turns top-level let/const/class into var in the Script form', () => {
    const a = analyze('let x = 1\nconst {a, b: [c]} = o;\nclass A extends B { m() { return `${x}` } }\n[1].map(f)');
    expect(a.script).toBe(
      'var x = 1\nvar {a, b: [c]} = o;\nvar A = class A extends B { m() { return `${x}` } };\n[1].map(f)',
    );
    expect(a.hasAwait).toBe(false);
  });

  it('hoists names and returns the last expression in the async form', () => {
    const src =
      "const r = await f('a;b', /x;[/]/)\nfunction g() {}\nfor (var i = 0; i < 2; i++) {}\nimport fs, {join as j} from 'node:path'\nr + i";
    const a = analyze(src);
    expect(a.hoisted).toEqual(['r', 'g', 'i', 'fs', 'j']);
    expect(asyncSource(src, a, true)).toBe(
      "var r, g, i, fs, j; (async () => {void ( r = await f('a;b', /x;[/]/))\nthis.g = g; function g() {}\n" +
        "for ( i = 0; i < 2; i++) {}\nvoid (({default: fs, join: j} = await __sandpitImport('node:path')))\nreturn {value: (r + i)}\n})()",
    );
  });

  it('leaves nested declarations and strings alone', () => {
    const src = "{ let x = 1 }\nif (a) { const y = 2 }\nconst s = 'let z = 3', t = `${'const w = 4'}`";
    expect(analyze(src).script).toBe(
      "{ let x = 1 }\nif (a) { const y = 2 }\nvar s = 'let z = 3', t = `${'const w = 4'}`",
    );
    expect(analyze(src).hoisted).toEqual(['s', 't']);
  });
});

describe('javascript agent over stdio', () => {
  let agent: Agent;
  let client: JsonLinesClient;

  beforeAll(() => {
    agent = startAgent();
    client = agent.client;
  });

  afterAll(() => {
    client.checkFraming();
    expect(agent.stderr()).toBe(''); // the agent logged no internal failure
    agent.stop();
  });

  it('answers hello', async () => {
    const hello = await client.hello();
    expect(hello).toMatchObject({ language: 'javascript', protocol: 1, pid: expect.any(Number) as unknown });
    expect(hello.version).toMatch(/^\d+\.\d+\.\d+/);
    if (NODE === process.execPath) {
      expect(hello.version).toBe(process.versions.node);
      expect(readFileSync(`/proc/${hello.pid as number}/cmdline`, 'latin1')).toContain(`\0${AGENT}\0`);
    }
  });

  it('keeps state between executions and returns the last expression', async () => {
    expect((await client.run('let x = 41')).done).toMatchObject({ status: 'ok', straysKilled: 0, files: [] });
    const run = await client.run('x + 1');
    expect(run.result).toBe('42');
    expect(run.done.durationMs).toEqual(expect.any(Number));
    expect((await client.run('_ * 2')).result).toBe('84');
    expect((await client.run('undefined')).result).toBeUndefined();
    expect((await client.run("({a: 1, s: 'two', n: [1, 2]})")).result).toBe("{ a: 1, s: 'two', n: [ 1, 2 ] }");
    await client.run('function twice(v) { return 2 * v }\nclass Box { constructor(v) { this.v = v } }');
    expect((await client.run('twice(new Box(x).v)')).result).toBe('82');
    // a cell can be run again: declarations are not locked to their first cell
    expect((await client.run('const k = 1')).done.status).toBe('ok');
    expect((await client.run('const k = 2\nclass Box {}\nk')).result).toBe('2');
    const globals =
      '[require, process.pid, Buffer, setTimeout, URL, TextEncoder, fetch, display].map((v) => typeof v).join()';
    expect((await client.run(globals)).result).toBe(
      "'function,number,function,function,function,function,function,function'",
    );
  });

  it('supports top-level await, and declarations made in async cells persist', async () => {
    const run = await client.run(
      'const v = await new Promise((r) => setTimeout(() => r(7), 20))\nlet w = v * 2\nclass C {}\nw + 1',
    );
    expect(run.done.status).toBe('ok');
    expect(run.result).toBe('15');
    expect((await client.run('[v, w, typeof C]')).result).toBe("[ 7, 14, 'function' ]");
    const imported = await client.run(
      "import path, {join as j} from 'node:path'\nawait null\nj('a', path.basename('/x/b'))",
    );
    expect(imported.result).toBe("'a/b'");
    expect((await client.run('for await (const n of [1, 2]) console.log(n)')).stdout).toBe('1\n2\n');
  });

  it('streams output as it is written, all of it before done', async () => {
    const run = await client.run(
      "console.log('first')\nawait new Promise((r) => setTimeout(r, 300))\nconsole.log('second')",
    );
    expect(run.stdout).toBe('first\nsecond\n');
    const at = (word: string): number => run.messages.find((r) => String(r.msg.text).includes(word))?.at ?? NaN;
    expect(at('second') - at('first')).toBeGreaterThanOrEqual(250);
    expect(at('second')).toBeLessThanOrEqual(run.messages.at(-1)!.at);
    expect(run.messages.at(-1)?.msg.type).toBe('done');
  });

  it('captures stderr, raw fd writes and the output of inheriting child processes at the fd level', async () => {
    const run = await client.run(
      [
        "const cp = require('child_process'), fs = require('fs')",
        "console.error('to stderr')",
        "cp.execSync('echo from-shell; echo shell-err >&2', {stdio: 'inherit'})",
        "cp.spawnSync('sh', ['-c', 'echo from-sub; echo sub-err >&2'], {stdio: 'inherit'})",
        "cp.execSync('echo into-execsync-stderr >&2')", // execSync's stderr is inherited by default
        "const piped = cp.execSync('echo piped').toString()", // stdout 'pipe': returned, not printed
        "cp.spawnSync('sh', ['-c', 'echo via-stream; echo via-stream-err >&2'], {stdio: ['ignore', process.stdout, process.stderr]})",
        "fs.writeSync(1, 'raw fd write\\n')",
        "process.stdout.write('process.stdout\\n')",
        "fs.writeFileSync('forked.js', 'console.log(\"from fork\")')",
        "await new Promise((r) => cp.fork('./forked.js').on('exit', r))",
      ].join('\n'),
    );
    expect(run.done.status).toBe('ok');
    expect(run.stdout).toBe('from-shell\nfrom-sub\nvia-stream\nraw fd write\nprocess.stdout\nfrom fork\n');
    expect(run.stderr).toBe('to stderr\nshell-err\nsub-err\ninto-execsync-stderr\nvia-stream-err\n');
  });

  it('decodes UTF-8 split across writes and replaces invalid bytes', async () => {
    const run = await client.run(
      "const data = Buffer.from('h\u00e9llo \u20ac')\nfor (let i = 0; i < data.length; i++) {\n" +
        "  require('fs').writeSync(1, data.subarray(i, i + 1)); await new Promise((r) => setTimeout(r, 5)) }\n" +
        "require('fs').writeSync(1, Buffer.from([0xff, 0x21, 0x0a]))",
    );
    expect(run.stdout).toBe('h\u00e9llo \u20ac\ufffd!\n');
  });

  it('reports exceptions with the user code in the stack and no agent frames', async () => {
    const run = await client.run('function f() {\n  return null.x\n}\n\nf()');
    expect(run.done.status).toBe('error');
    expect(run.error).toMatchObject({ name: 'TypeError' });
    expect(run.error?.value).toMatch(/null/);
    const tb = run.error?.traceback as string;
    expect(tb).toMatch(/^TypeError: .*null/);
    expect(tb).toMatch(/at f \(<cell-\d+>:2:\d+\)/);
    expect(tb).toMatch(/at <cell-\d+>:5:1/);
    expectNoAgentFrames(tb);
    expect(tb).not.toContain('node:vm');
    const thrown = await client.run('throw {code: 42}');
    expect(thrown.error).toMatchObject({ name: 'Uncaught', value: '{ code: 42 }' });
    const rejected = await client.run("await Promise.reject(new RangeError('late'))");
    expect(rejected.error).toMatchObject({ name: 'RangeError', value: 'late' });
    expectNoAgentFrames(rejected.error?.traceback);
  });

  it('reports syntax errors, keeping the state', async () => {
    const run = await client.run('x = (');
    expect(run.done.status).toBe('error');
    expect(run.error?.name).toBe('SyntaxError');
    expect(run.error?.traceback).toContain('<cell-');
    expectNoAgentFrames(run.error?.traceback);
    const inAsync = await client.run('await 1\nlet = ;');
    expect(inAsync.error?.name).toBe('SyntaxError');
    expect(inAsync.error?.value).not.toMatch(/await is only valid/);
    expect((await client.run('x')).result).toBe('41');
  });

  it('reports an exception raised while showing the result', async () => {
    const run = await client.run(
      "({ [Symbol.for('nodejs.util.inspect.custom')]() { throw new Error('bad inspect') } })",
    );
    expect(run.done.status).toBe('error');
    expect(run.error).toMatchObject({ name: 'Error', value: 'bad inspect' });
  });

  it('turns errors thrown in callbacks during the run into its error', async () => {
    const run = await client.run(
      "setTimeout(() => { throw new Error('in a timer') }, 10)\nawait new Promise((r) => setTimeout(r, 200))\n'not reached'",
    );
    expect(run.done.status).toBe('error');
    expect(run.error).toMatchObject({ name: 'Error', value: 'in a timer' });
    const rejection = await client.run("Promise.reject(new Error('nobody catches me'))\n1");
    expect(rejection.done.status).toBe('error');
    expect(rejection.error?.value).toBe('nobody catches me');
  });

  it('survives errors between executions and reports them with the next one', async () => {
    await client.run(
      "setTimeout(() => { throw new Error('later') }, 30); setTimeout(() => Promise.reject(new Error('later rejection')), 30)",
    );
    await sleep(150);
    const run = await client.run('1 + 1');
    expect(run.result).toBe('2');
    expect(run.stderr).toContain('[between executions] Uncaught exception: Error: later');
    expect(run.stderr).toContain('[between executions] Unhandled promise rejection: Error: later rejection');
  });

  it('interrupts a busy loop, keeping state', async () => {
    const id = client.start("console.log('spinning')\nlet y = 1\nwhile (true) {}");
    await client.waitFor((m) => m.id === id && m.type === 'stream');
    client.send({ type: 'interrupt', id });
    const run = await client.collect(id);
    expect(run.done.status).toBe('interrupted');
    expect(run.error?.name).toBe('Interrupted');
    expect((await client.run('[x, y]')).result).toBe('[ 41, 1 ]');
  });

  it('interrupts a pending await and clears the timers of the execution', async () => {
    const id = client.start(
      "setInterval(() => console.log('tick'), 20)\nconsole.log('waiting')\nawait new Promise(() => {})",
    );
    await client.waitFor((m) => m.id === id && m.type === 'stream');
    const sent = performance.now();
    client.send({ type: 'interrupt', id });
    const run = await client.collect(id);
    expect(run.done.status).toBe('interrupted');
    expect(run.messages.at(-1)!.at - sent).toBeLessThan(1_000);
    await sleep(100);
    expect((await client.run("'after'")).stdout).toBe(''); // the interval is gone
  });

  it('interrupts a busy loop that runs after an await', async () => {
    const id = client.start("await new Promise((r) => setTimeout(r, 10))\nconsole.log('busy')\nwhile (true) {}");
    await client.waitFor((m) => m.id === id && m.type === 'stream');
    client.send({ type: 'interrupt', id });
    const run = await client.collect(id);
    expect(run.done.status).toBe('interrupted');
    expect((await client.run('x')).result).toBe('41');
  });

  it('interrupts code blocked in a synchronous child process', async () => {
    const id = client.start("console.log('sleeping')\nrequire('child_process').execSync('sleep 100')");
    await client.waitFor((m) => m.id === id && m.type === 'stream');
    const sent = performance.now();
    client.send({ type: 'interrupt', id });
    const run = await client.collect(id);
    expect(run.done.status).toBe('interrupted');
    expect(run.messages.at(-1)!.at - sent).toBeLessThan(3_000);
    expect((await client.run('x')).result).toBe('41');
  });

  it('ignores interrupts for other executions, and user SIGINT listeners do not break interrupts', async () => {
    await client.run("process.removeAllListeners('SIGINT'); process.on('SIGINT', () => {})");
    const id = client.start("console.log('go')\nawait new Promise((r) => setTimeout(r, 300))\n'finished'");
    await client.waitFor((m) => m.id === id && m.type === 'stream');
    client.send({ type: 'interrupt', id: 'not-running' });
    const run = await client.collect(id);
    expect(run.done.status).toBe('ok');
    expect(run.result).toBe("'finished'");
    const again = client.start("console.log('go')\nawait new Promise(() => {})");
    await client.waitFor((m) => m.id === again && m.type === 'stream');
    client.send({ type: 'interrupt', id: again });
    expect((await client.collect(again)).done.status).toBe('interrupted');
  });

  it('honours an interrupt that arrives before the code starts, even for a queued execution', async () => {
    const first = client.start("console.log('first')\nconst until = Date.now() + 300\nwhile (Date.now() < until) {}");
    const queued = client.start("console.log('must not run')");
    client.send({ type: 'interrupt', id: queued });
    const run = await client.collect(queued);
    expect(run.done.status).toBe('interrupted');
    expect(run.stdout).toBe('');
    expect((await client.collect(first)).done.status).toBe('ok');
  });

  it('caps output per stream and counts what it dropped', async () => {
    const run = await client.run(
      "process.stdout.write('a'.repeat(10000))\nprocess.stderr.write('b'.repeat(300))\nrequire('child_process').execSync('printf %0500d 0', {stdio: 'inherit'})",
      1000,
    );
    expect(run.done.status).toBe('ok');
    expect(run.stdout).toBe('a'.repeat(1000));
    expect(run.stderr).toBe('b'.repeat(300));
    expect(run.done.dropped).toEqual({ stdout: 9500, stderr: 0 });
    const big = await client.run("process.stdout.write('c'.repeat(300000))");
    expect(big.stdout.length).toBe(300000);
    for (const r of big.messages.filter((m) => m.msg.type === 'stream'))
      expect((r.msg.text as string).length).toBeLessThanOrEqual(65536);
  });

  it('never lets printed text break the framing', async () => {
    const fake = JSON.stringify({ type: 'done', id: 'e0', status: 'ok' });
    const run = await client.run(
      `console.log(${JSON.stringify(fake)})\nprocess.stdout.write('no newline \\u0000\\u001b[sandpit-sync:00:1]\\u0000 {"type":')\n` +
        "require('fs').writeSync(1, '\\n' + '\\u0000'.repeat(3))\nconsole.error('\\r\\n}\\n')",
    );
    expect(run.done.status).toBe('ok');
    expect(run.stdout).toBe(`${fake}\nno newline \u0000\u001b[sandpit-sync:00:1]\u0000 {"type":\n\u0000\u0000\u0000`);
    expect(run.stderr).toBe('\r\n}\n\n');
    expect(client.received.some((r) => r.msg.id === 'e0')).toBe(false);
  });

  it('lists files created or changed under the workspace', async () => {
    const first = await client.run(
      "const fs = require('fs')\nfs.mkdirSync('out/sub', {recursive: true})\nfs.writeFileSync('out/sub/a.txt', 'hello')\n" +
        "fs.symlinkSync('out/sub/a.txt', 'link.txt')\nrequire('child_process').execSync('mkfifo fifo')\nfs.symlinkSync('/etc', 'etc-link')",
    );
    expect(first.done.files).toEqual([{ path: 'out/sub/a.txt', size: 5 }]);
    expect(first.done.filesTruncated).toBe(false);
    writeFileSync(join(agent.workspace, 'uploaded.txt'), 'from the host');
    expect((await client.run('1')).done.files).toEqual([]);
    const second = await client.run(
      "fs.appendFileSync('out/sub/a.txt', '!!')\nfs.writeFileSync('b.bin', Buffer.from([1]))",
    );
    expect(second.done.files).toEqual([
      { path: 'b.bin', size: 1 },
      { path: 'out/sub/a.txt', size: 7 },
    ]);
  });

  it('requires from the workspace', async () => {
    mkdirSync(join(agent.workspace, 'node_modules', 'local-pkg'), { recursive: true });
    writeFileSync(join(agent.workspace, 'node_modules', 'local-pkg', 'index.js'), 'module.exports = { answer: 42 }');
    writeFileSync(join(agent.workspace, 'helper.js'), "exports.hi = () => 'hi'");
    expect((await client.run("require('local-pkg').answer + require('./helper').hi()")).result).toBe("'42hi'");
    expect((await client.run("(await import('local-pkg')).default.answer")).result).toBe('42');
  });

  it('does not exit on process.exit()', async () => {
    const run = await client.run('process.exit(3)');
    expect(run.done.status).toBe('error');
    expect(run.error?.name).toBe('ProcessExit');
    expect(run.error?.value).toContain('process.exit(3)');
    await client.run('setTimeout(() => process.exit(4), 10)');
    await sleep(100);
    expect((await client.run('x')).result).toBe('41');
  });

  it('sends rich output from display(), in order with the text output', async () => {
    const run = await client.run(
      [
        "class H { _repr_html_() { return '<b>hi</b>' } }",
        "class P { _repr_png_() { return Buffer.from('\\x89PNG fake', 'latin1') } }",
        "console.log('before')",
        'display(new H(), new P())',
        "console.log('between')",
        'display(\'<svg xmlns="http://www.w3.org/2000/svg"/>\', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), [1, 2])',
      ].join('\n'),
    );
    expect(run.done.status).toBe('ok');
    expect(shape(run)).toEqual(['stream', 'display', 'display', 'stream', 'display', 'display', 'stream', 'done']);
    expect(run.displays).toEqual([
      { type: 'display', id: run.id, mime: 'text/html', data: '<b>hi</b>', encoding: 'utf8' },
      {
        type: 'display',
        id: run.id,
        mime: 'image/png',
        data: Buffer.from('\x89PNG fake', 'latin1').toString('base64'),
        encoding: 'base64',
      },
      {
        type: 'display',
        id: run.id,
        mime: 'image/svg+xml',
        data: '<svg xmlns="http://www.w3.org/2000/svg"/>',
        encoding: 'utf8',
      },
      { type: 'display', id: run.id, mime: 'image/png', data: 'iVBORw0KGgo=', encoding: 'base64' },
    ]);
    expect(run.stdout).toBe('before\nbetween\n[ 1, 2 ]\n');
  });

  it('restores fds and streams that user code closed', async () => {
    await client.run(
      "require('fs').closeSync(1); require('fs').closeSync(2); process.stdout.end(); process.stdout.destroy()",
    );
    const run = await client.run(
      "console.log('out again')\nconsole.error('err again')\nrequire('child_process').execSync('echo child again', {stdio: 'inherit'})",
    );
    expect(run.stdout).toBe('out again\nchild again\n');
    expect(run.stderr).toBe('err again\n');
  });

});

describeWorkspaceFs('javascript agent: workspace files (fs requests)', {
  start: () => startAgent(),
  startOnSmallTmpfs: () => startAgent({}, onSmallTmpfs([NODE, AGENT])),
  busyCode: "console.log('busy')\nwhile (true) {}",
});

describe('javascript agent lifecycle', () => {
  it('exits when its stdin channel ends, after sending what it has queued', async () => {
    const agent = startAgent();
    try {
      agent.client.send({ type: 'hello', id: 'last-words' });
      agent.proc.stdin.end(); // replies already queued are still sent
      await agent.client.waitFor((m) => m.type === 'hello' && m.id === 'last-words');
      const deadline = Date.now() + WAIT_MS;
      while (agent.exitStatus() === undefined && Date.now() < deadline) await sleep(20);
      expect(agent.exitStatus()).toBe(0);
      expect(agent.stderr()).toBe('');
    } finally {
      agent.stop();
    }
  });

  it('attributes background output to the running execution and never sends it after done', async () => {
    const agent = startAgent();
    const client = agent.client;
    try {
      const code =
        "setInterval(() => { console.log('tick'); require('fs').writeSync(2, 'tock\\n') }, 2)\nawait new Promise((r) => setTimeout(r, 50))";
      expect((await client.run(code)).stdout).toMatch(/^(tick\n)+$/);
      for (let i = 0; i < 20; i++) {
        const run = await client.run(`console.log('cell ${i}')\nawait new Promise((r) => setTimeout(r, 10))`);
        expect(run.stdout).toMatch(new RegExp(`^(tick\\n)*cell ${i}\\n(tick\\n)*$`));
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
    const dir = mkdtempSync(join(tmpdir(), 'sandpit-js-agent-sock-'));
    const path = join(dir, 'a.sock');
    writeFileSync(path, 'stale');
    const agent = startAgent({ SANDPIT_CHANNEL: `socket:${path}` });
    const sockets: Socket[] = [];
    const connect = (): Promise<JsonLinesClient> => connectClient(path, sockets);
    try {
      await waitUntil(
        () => existsSync(path) && statSync(path).isSocket() && (statSync(path).mode & 0o777) === 0o600,
        'socket did not appear',
      );
      const first = await connect();
      expect((await first.hello()).language).toBe('javascript');
      const run = await first.run(
        "const v = 'kept'\nconsole.log('over the socket')\nrequire('child_process').execSync('echo child', {stdio: 'inherit'})",
      );
      expect(run.stdout).toBe('over the socket\nchild\n');
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
    const dir = mkdtempSync(join(tmpdir(), 'sandpit-js-agent-sock-'));
    const path = join(dir, 'a.sock');
    const agent = startAgent({ SANDPIT_CHANNEL: `socket:${path}`, SANDPIT_UNCONNECTED_EXIT_S: '1' });
    try {
      await expectUnconnectedExit(path, () => agent.exitStatus() !== undefined, "var v = 'kept'", 'v', "'kept'");
      expect(agent.exitStatus()).toBe(0);
    } finally {
      agent.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  // kill(-1, SIGKILL) is only safe in a PID namespace of its own: run the agent under `unshare` (as init's
  // child, like under the container's init). Without unprivileged user namespaces this is reported as skipped.
  const unshare = ['unshare', '--user', '--map-root-user', '--pid', '--fork', '--mount-proc'];
  const canUnshare = spawnSync(unshare[0]!, [...unshare.slice(1), 'true']).status === 0;

  const inNamespace = (): Agent =>
    startAgent({ SANDPIT_KILL_STRAYS: '1' }, [...unshare, 'sh', '-c', '"$0" "$1"; exit $?', NODE, AGENT]);

  it.skipIf(!canUnshare)(
    'kills every process an execution leaves behind when it ends, interrupted or not (in a PID namespace; skipped without unshare)',
    async () => {
      const agent = inNamespace();
      const client = agent.client;
      try {
        // Safety first: only go on if the agent really is in its own PID namespace, under its init.
        const alive =
          "function alive() { const fs = require('fs'); return fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n) && +n !== 1 && +n !== process.pid)" +
          ".filter((n) => { try { const st = fs.readFileSync(`/proc/${n}/stat`, 'latin1'); return st[st.lastIndexOf(')') + 2] !== 'Z' } catch { return false } }) }";
        expect((await client.run(`${alive}\n[process.ppid, alive().length]`)).result).toBe('[ 1, 0 ]');
        const setup = await client.run(
          "const cp = require('child_process')\ncp.spawn('sleep', ['100'], {stdio: 'ignore'})\ncp.execSync('sleep 100 > /dev/null 2>&1 &')\nalive().length",
        );
        expect(setup.result).toBe('2');
        expect(setup.done.straysKilled).toBe(2); // background processes end with their execution
        expect(await client.run('alive()')).toMatchObject({ result: '[]', done: { straysKilled: 0 } });
        const id = client.start(
          "cp.spawn('sleep', ['100'], {stdio: 'ignore'})\nconsole.log('spinning')\nwhile (true) {}",
        );
        await client.waitFor((m) => m.id === id && m.type === 'stream');
        client.send({ type: 'interrupt', id });
        const run = await client.collect(id);
        expect(run.done).toMatchObject({ status: 'interrupted', straysKilled: 1 });
        expect((await client.run('alive()')).result).toBe('[]');
        client.checkFraming();
      } finally {
        agent.stop();
      }
    },
  );

  it.skipIf(!canUnshare)(
    'interrupts code blocked in a synchronous child process that keeps forking, orphans and all (in a PID namespace; skipped without unshare)',
    async () => {
      // A shell that forks all the time: a child forked while the agent collects the tree to kill is orphaned
      // (its parent dies), still holds execSync's pipe, and used to keep the execution blocked to its end.
      const agent = inNamespace();
      const client = agent.client;
      try {
        expect((await client.run('process.ppid')).result).toBe('1');
        const id = client.start(
          "console.log('forking')\nrequire('child_process').execSync('while :; do sleep 30 & sleep 0.002; done')",
        );
        await client.waitFor((m) => m.id === id && m.type === 'stream');
        await sleep(300); // a tree of some hundred processes, growing
        client.send({ type: 'interrupt', id });
        const run = await client.collect(id);
        expect(run.done.status).toBe('interrupted');
        const after = await client.run(
          "require('fs').readdirSync('/proc').filter((n) => /^\\d+$/.test(n) && +n !== 1 && +n !== process.pid).filter((n) => { try { const st = require('fs').readFileSync(`/proc/${n}/stat`, 'latin1'); return st[st.lastIndexOf(')') + 2] !== 'Z' } catch { return false } }).length",
        );
        expect(after.result).toBe('0');
        client.checkFraming();
      } finally {
        agent.stop();
      }
    },
  );

  it.skipIf(!canUnshare)(
    'shows none of a background printer in the next execution (in a PID namespace; skipped without unshare)',
    async () => {
      const agent = inNamespace();
      const client = agent.client;
      try {
        expect((await client.run('process.ppid')).result).toBe('1');
        const first = await client.run(
          // Waits (bounded) until the printer has printed once: on a loaded machine a new Node can take longer to
          // start than any fixed sleep.
          "require('child_process').spawn(process.execPath, ['-e', \"setInterval(() => { console.log('bg-line'); require('fs').writeFileSync('bg-printed', '') }, 50)\"], { stdio: 'inherit' })\n" +
            "const deadline = Date.now() + 30000\nwhile (!require('fs').existsSync('bg-printed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))\n" +
            'await new Promise((r) => setTimeout(r, 200))',
        );
        expect(first.stdout).toMatch(/^(bg-line\n)+$/);
        expect(first.done.straysKilled).toBe(1);
        const second = await client.run("await new Promise((r) => setTimeout(r, 300))\nconsole.log('second')");
        expect(second.stdout).toBe('second\n');
        expect(second.done.straysKilled).toBe(0);
        client.checkFraming();
      } finally {
        agent.stop();
      }
    },
  );

  it.skipIf(!canUnshare)(
    'still runs child processes across executions (in a PID namespace; skipped without unshare)',
    async () => {
      const agent = inNamespace();
      const client = agent.client;
      try {
        expect((await client.run('process.ppid')).result).toBe('1');
        for (let i = 0; i < 2; i++) {
          const run = await client.run(
            "const { execSync, spawnSync, spawn } = require('child_process')\nconst out = execSync('echo hi').toString()\nconst code = await new Promise((r) => spawn('sh', ['-c', 'exit 3']).on('exit', r));\n[out, spawnSync('sh', ['-c', 'exit 5']).status, code]",
          );
          expect(run).toMatchObject({ result: "[ 'hi\\n', 5, 3 ]", done: { status: 'ok', straysKilled: 0 } });
        }
        // timers and worker threads are not processes: they go on
        await client.run(
          "let ticks = 0\nsetInterval(() => ticks++, 10)\nconst { Worker } = require('worker_threads')\nconst w = new Worker('setInterval(() => {}, 1000)', { eval: true })",
        );
        await sleep(100);
        const after = await client.run('await new Promise((r) => setTimeout(r, 50));\n[ticks > 0, w.threadId > 0]');
        expect(after.result).toBe('[ true, true ]');
        expect(after.done.straysKilled).toBe(0);
        await client.run('w.terminate()');
        client.checkFraming();
      } finally {
        agent.stop();
      }
    },
  );

  it.skipIf(!canUnshare)(
    'reaps a process that ignores SIGINT, SIGTERM and SIGHUP, started between executions (in a PID namespace; skipped without unshare)',
    async () => {
      const agent = inNamespace();
      const client = agent.client;
      const seconds = `${4000 + Math.floor(Math.random() * 1000)}.75`;
      try {
        expect((await client.run('process.ppid')).result).toBe('1');
        const later = await client.run(
          `setTimeout(() => require('child_process').spawn('sh', ['-c', 'trap "" INT TERM HUP; exec sleep ${seconds}'], { stdio: 'ignore' }), 300)`,
        );
        expect(later.done.straysKilled).toBe(0); // it does not exist yet
        let pid = 0;
        await waitUntil(() => (pid = findProcess(['sleep', seconds])) > 0, 'the stubborn process did not start');
        expect(ignoredSignals(pid)).toEqual(expect.arrayContaining([1, 2, 15]));
        expect(await client.reap()).toMatchObject({ type: 'reaped', killed: 1 });
        await waitUntil(() => isGone(pid), 'the stubborn process survived reap');
        expect(await client.reap()).toMatchObject({ type: 'reaped', killed: 0 });
        expect((await client.run('1 + 1')).result).toBe('2'); // the agent itself goes on
        expect(agent.stderr()).toBe('');
      } finally {
        agent.stop();
      }
    },
  );
});
