// The host's pipe (agent-pipe.ts) against the real agents, started on this machine on a socket channel as their
// images start them: a workspace read and written as one tar stream through a socket in the agent's folder.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, spawnAgent, waitUntil } from '../../../executor-image/agents/test-support/agent-client';
import type { JsonLinesClient, Message } from '../../../executor-image/agents/test-support/agent-client';
import { pausingReader } from '../../test-support/pausing-reader';
import { agentPipe } from './agent-pipe';
import type { PipeAgent, PipeSandbox } from './agent-pipe';

const AGENTS = join(import.meta.dirname, '../../../executor-image/agents');
const PYTHON = process.env.SANDPIT_TEST_PYTHON ?? 'python3';
/** The JavaScript agent needs real pipes on stdin/stdout/stderr (Node's child_process gives socketpairs). */
const PIPES = '{ cat | { "$@" 2>&4 >&3 3>&- 4>&-; } 4>&1 | cat >&2; } 3>&1 | cat';
const AGENT_COMMANDS: Record<string, string[]> = {
  python: [PYTHON, '-s', join(AGENTS, 'python/agent.py')],
  javascript: ['sh', '-c', PIPES, 'sh', process.execPath, join(AGENTS, 'javascript/main.js')],
};

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.reverse()) step();
  cleanup = [];
});

interface Started {
  client: JsonLinesClient;
  workspace: string;
  folder: string;
  hello: Message;
}

/** An agent on a socket channel in a folder of its own (like the session's agent folder). */
async function startAgent(language: string): Promise<Started> {
  const folder = mkdtempSync(join(tmpdir(), 'sandpit-pipe-agent-'));
  const path = join(folder, 'agent.sock');
  const agent = spawnAgent(AGENT_COMMANDS[language]!, {
    workspacePrefix: 'sandpit-pipe-ws-',
    env: { SANDPIT_KILL_STRAYS: undefined, SANDPIT_CHANNEL: `socket:${path}`, SANDPIT_LANGUAGE: language, NODE_OPTIONS: undefined },
    detached: language === 'javascript',
  });
  const sockets: Socket[] = [];
  cleanup.push(() => {
    for (const s of sockets) s.destroy();
    agent.stop();
    rmSync(folder, { recursive: true, force: true });
  });
  await waitUntil(() => {
    try {
      readFileSync(path);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENXIO' || (error as NodeJS.ErrnoException).code === 'EOPNOTSUPP';
    }
  }, `the ${language} agent did not listen on ${path}`);
  const client = await connectClient(path, sockets);
  client.send({ type: 'hello', id: 'h1' });
  const hello = (await client.waitFor((m) => m.type === 'hello' && m.id === 'h1')).msg;
  return { client, workspace: agent.workspace, folder, hello };
}

/** The driver's side of requests, on the test's client: sends what `build` makes, collects the reply of its id. */
function requester(client: JsonLinesClient, before?: (path: string) => Promise<void>, where?: { path?: string }): PipeAgent {
  let n = 0;
  return {
    request: async (build, collect, timeoutMs) => {
      const id = `p${++n}`;
      const messages = build(id);
      if (before && where?.path) await before(where.path);
      for (const m of messages) client.send(m);
      const reply = (await client.waitFor((m) => m.id === id && (m.type === 'fs-exit' || m.type === 'fs-error'), timeoutMs)).msg;
      const value = collect(reply as never);
      if (value === undefined) throw new Error('no answer');
      return value;
    },
  };
}

function sandboxIn(folder: string, seen?: { path?: string }): PipeSandbox {
  return {
    tunnelSocket: (name) => {
      const hostPath = join(folder, name);
      if (seen && name !== 'pipe-probe.sock') seen.path = hostPath;
      return { hostPath, insidePath: hostPath, uid: process.getuid?.() ?? 0 };
    },
  };
}

async function collected(run: (out: PassThrough) => Promise<unknown>): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  await run(out);
  return Buffer.concat(chunks);
}

function tarNames(archive: Buffer): string[] {
  return execFileSync('tar', ['-tf', '-'], { input: archive, encoding: 'utf8' }).trim().split('\n').sort();
}

function tarVerbose(archive: Buffer): string {
  return execFileSync('tar', ['-tvf', '-'], { input: archive, encoding: 'utf8' });
}

describe.each(['python', 'javascript'])('the pipe of the %s agent', (language) => {
  it('is offered on the socket channel: a workspace read as one tar stream through it, a link archived as a link', async () => {
    const agent = await startAgent(language);
    expect(agent.hello.features).toEqual(['pipe']);
    mkdirSync(join(agent.workspace, 'data'));
    writeFileSync(join(agent.workspace, 'data', 'a.txt'), 'alpha');
    writeFileSync(join(agent.workspace, 'big.bin'), Buffer.alloc(3 * 1024 * 1024, 7));
    symlinkSync('/etc/passwd', join(agent.workspace, 'link'));
    const pipe = agentPipe(requester(agent.client), sandboxIn(agent.folder), true)!;
    const archive = await collected((out) => pipe.exec(['tar', '--create', '--file=-', '.'], { timeoutMs: 20_000, stdoutTo: out }).then((r) => expect(r).toMatchObject({ exitCode: 0 })));
    expect(tarNames(archive)).toEqual(['./', './big.bin', './data/', './data/a.txt', './link']);
    expect(tarVerbose(archive)).toMatch(/^lrwxrwxrwx .* \.\/link -> \/etc\/passwd$/m);
    expect(archive.length).toBeGreaterThan(3 * 1024 * 1024);
  });

  it('gives the stream to a reader read by read (chunk-reader.ts), paused while the reader asks, byte for byte what a stream gets', async () => {
    const agent = await startAgent(language);
    writeFileSync(join(agent.workspace, 'big.bin'), randomBytes(6 * 1024 * 1024));
    const pipe = agentPipe(requester(agent.client), sandboxIn(agent.folder), true)!;
    const argv = ['tar', '--create', '--file=-', '--blocking-factor=512', 'big.bin'];
    const streamed = await collected((out) => pipe.exec(argv, { timeoutMs: 20_000, stdoutTo: out }));
    const reader = pausingReader(4, 5);
    const r = await pipe.exec(argv, { timeoutMs: 20_000, stdoutReader: reader });
    // every byte was taken by the time the exec resolved
    expect(r).toMatchObject({ exitCode: 0 });
    expect(reader.pauses).toBeGreaterThan(2);
    expect(reader.bytes().equals(streamed)).toBe(true);
    expect(streamed.length).toBeGreaterThan(6 * 1024 * 1024);
    expect(execFileSync('tar', ['-t', '--blocking-factor=512', '-f', '-'], { input: streamed, encoding: 'utf8' })).toBe('big.bin\n');
  });

  it('writes what the host sends on stdin (a tar stream unpacked in the workspace), and says the exit code and stderr', async () => {
    const agent = await startAgent(language);
    const source = mkdtempSync(join(tmpdir(), 'sandpit-pipe-src-'));
    cleanup.push(() => rmSync(source, { recursive: true, force: true }));
    writeFileSync(join(source, 'restored.txt'), 'from the host');
    const archive = execFileSync('tar', ['--create', '--file=-', '-C', source, 'restored.txt']);
    const pipe = agentPipe(requester(agent.client), sandboxIn(agent.folder), true)!;
    const unpacked = await pipe.exec(['tar', '--extract', '--file=-'], { timeoutMs: 20_000, stdin: archive });
    expect(unpacked).toEqual({ exitCode: 0, stdout: '', stderr: '', timedOut: false });
    expect(readFileSync(join(agent.workspace, 'restored.txt'), 'utf8')).toBe('from the host');
    const failed = await pipe.exec(['tar', '--extract', '--file=-'], { timeoutMs: 20_000, stdin: Buffer.from('not a tar archive at all') });
    expect(failed.exitCode).toBe(2);
    expect(failed.stderr).toMatch(/^tar: This does not look like a tar archive/);
  });

  it('runs the programs of /usr/bin and /bin only, with an environment user code cannot change', async () => {
    const agent = await startAgent(language);
    writeFileSync(join(agent.workspace, 'keep.txt'), 'kept');
    // User code sets TAR_OPTIONS and PATH in the agent's own environment: the pipe's tar must not see them.
    const planted = language === 'python' ? "import os\nos.environ['TAR_OPTIONS'] = '--exclude=keep.txt'\nos.environ['PATH'] = '/nowhere'" : "process.env.TAR_OPTIONS = '--exclude=keep.txt'; process.env.PATH = '/nowhere'";
    expect((await agent.client.run(planted)).done).toMatchObject({ status: 'ok' });
    const pipe = agentPipe(requester(agent.client), sandboxIn(agent.folder), true)!;
    const archive = await collected((out) => pipe.exec(['tar', '--create', '--file=-', 'keep.txt'], { timeoutMs: 20_000, stdoutTo: out }));
    expect(tarNames(archive)).toEqual(['keep.txt']);
    const env = await collected((out) => pipe.exec(['env'], { timeoutMs: 20_000, stdoutTo: out }));
    expect(env.toString().trim().split('\n').sort()).toEqual(['LC_ALL=C', 'PATH=/usr/bin:/bin']);
    await expect(pipe.exec(['../../bin/sh', '-c', 'true'], { timeoutMs: 20_000 })).rejects.toThrow(/could not run \.\.\/\.\.\/bin\/sh: The program must be a bare name/);
    await expect(pipe.exec(['no-such-program-here'], { timeoutMs: 20_000 })).rejects.toThrow(/There is no program "?'?no-such-program-here/);
  });

  it('takes only the connection that says the token: another process that connects first is closed unheard', async () => {
    const agent = await startAgent(language);
    writeFileSync(join(agent.workspace, 'secret.txt'), 'for the host only');
    const seen: { path?: string } = {};
    let rogueGot = Buffer.alloc(0);
    let rogueClosed = false;
    // Before the agent is asked, another process of the sandbox connects and says a wrong token.
    const rogue = (path: string): Promise<void> =>
      new Promise((resolve) => {
        const socket = createConnection(path);
        cleanup.push(() => socket.destroy());
        socket.on('connect', () => socket.write(`${'0'.repeat(64)}\n`));
        socket.on('data', (c: Buffer) => (rogueGot = Buffer.concat([rogueGot, c])));
        socket.on('close', () => {
          rogueClosed = true;
          resolve();
        });
        socket.on('error', () => undefined);
      });
    const pipe = agentPipe(requester(agent.client, rogue, seen), sandboxIn(agent.folder, seen), true)!;
    const archive = await collected((out) => pipe.exec(['tar', '--create', '--file=-', 'secret.txt'], { timeoutMs: 20_000, stdoutTo: out }));
    expect(rogueClosed).toBe(true);
    expect(rogueGot.length).toBe(0);
    expect(archive.includes(Buffer.from('for the host only'))).toBe(true);
  });
});

it('is not offered by an agent on the stdio channel, which refuses a pipe request in plain words', async () => {
  const agent = spawnAgent(AGENT_COMMANDS.python!, { workspacePrefix: 'sandpit-pipe-ws-', env: { SANDPIT_KILL_STRAYS: undefined } });
  cleanup.push(agent.stop);
  agent.client.send({ type: 'hello', id: 'h1' });
  const hello = (await agent.client.waitFor((m) => m.type === 'hello')).msg;
  expect(hello.features).toBeUndefined();
  const folder = mkdtempSync(join(tmpdir(), 'sandpit-pipe-none-'));
  cleanup.push(() => rmSync(folder, { recursive: true, force: true }));
  expect(agentPipe(requester(agent.client), sandboxIn(folder), false)).toBeUndefined();
  const pipe = agentPipe(requester(agent.client), sandboxIn(folder), true)!;
  await expect(pipe.exec(['tar', '--create', '--file=-', '.'], { timeoutMs: 20_000, stdoutTo: new PassThrough() })).rejects.toThrow(/This agent shares no folder with the host \(stdio channel\)/);
});
