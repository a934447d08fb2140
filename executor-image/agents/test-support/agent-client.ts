// What the agents' unit tests (../javascript/agent.test.ts, ../python/agent.test.ts) share: a client of the
// JSON-lines protocol of ../PROTOCOL.md, and starting an agent process or connecting to its socket.
// Not part of any image: an image's build context holds only its own agent directory.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { expect } from 'vitest';

export const WAIT_MS = 8_000;

export type Message = Record<string, unknown> & { type: string };

export interface Received {
  msg: Message;
  at: number;
}

export interface Execution {
  id: string;
  messages: Received[];
  done: Message;
  stdout: string;
  stderr: string;
  result: string | undefined;
  error: Message | undefined;
  displays: Message[];
}

/** The replies to one `fs` request: the final one, every message with its id, and the fs-data content. */
export interface FsResult {
  id: string;
  reply: Message;
  messages: Message[];
  chunks: Buffer[];
  data: Buffer;
}

let sequence = 0;

/** A JSON-lines client: every wait has a timeout, every received message is kept with its arrival time. */
export class JsonLinesClient {
  readonly received: Received[] = [];
  closed = false;
  private buffer = '';
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly writeRaw: (text: string) => void,
    input: Readable,
  ) {
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => {
      this.buffer += chunk;
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        const msg = JSON.parse(line) as Message; // a line that is not JSON fails the test here
        this.received.push({ msg, at: performance.now() });
      }
      this.notify();
    });
    input.on('close', () => {
      this.closed = true;
      this.notify();
    });
  }

  send(msg: Record<string, unknown>): void {
    this.writeRaw(`${JSON.stringify(msg)}\n`);
  }

  write(text: string): void {
    this.writeRaw(text);
  }

  /** Resolves with the first received message (from index `from`) matching `pred`. */
  waitFor(pred: (msg: Message) => boolean, timeoutMs = WAIT_MS, from = 0): Promise<Received> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.received.slice(from).find((r) => pred(r.msg));
        if (found) {
          finish();
          resolve(found);
          return true;
        }
        if (this.closed) {
          finish();
          reject(new Error('channel closed while waiting'));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      if (!check()) this.listeners.add(check);
    });
  }

  async hello(): Promise<Message> {
    const id = `h${++sequence}`;
    this.send({ type: 'hello', id });
    return (await this.waitFor((m) => m.type === 'hello' && m.id === id)).msg;
  }

  /** Sends an execute request; returns its id. */
  start(code: string, outputLimit = 1 << 20): string {
    const id = `e${++sequence}`;
    this.send({ type: 'execute', id, code, outputLimit });
    return id;
  }

  async collect(id: string, timeoutMs = WAIT_MS): Promise<Execution> {
    const done = (await this.waitFor((m) => m.type === 'done' && m.id === id, timeoutMs)).msg;
    const messages = this.received.filter((r) => r.msg.id === id);
    const text = (name: string): string =>
      messages
        .filter((r) => r.msg.type === 'stream' && r.msg.name === name)
        .map((r) => r.msg.text as string)
        .join('');
    const result = messages.find((r) => r.msg.type === 'result')?.msg.text as string | undefined;
    return {
      id,
      messages,
      done,
      stdout: text('stdout'),
      stderr: text('stderr'),
      result,
      error: messages.find((r) => r.msg.type === 'error')?.msg,
      displays: messages.filter((r) => r.msg.type === 'display').map((r) => r.msg),
    };
  }

  run(code: string, outputLimit?: number, timeoutMs?: number): Promise<Execution> {
    return this.collect(this.start(code, outputLimit), timeoutMs);
  }

  /**
   * Sends a `fs` request (`op` and `fields`) with a fresh id; resolves with its final reply (fs-done, fs-list,
   * fs-usage or fs-error) and the content of the fs-data messages before it.
   */
  async fs(op: string, fields: Record<string, unknown> = {}, timeoutMs = WAIT_MS): Promise<FsResult> {
    const id = `f${++sequence}`;
    this.send({ type: 'fs', id, op, ...fields });
    return this.fsResult(id, timeoutMs);
  }

  readFile(path: string, maxBytes = 1 << 20): Promise<FsResult> {
    return this.fs('read', { path, maxBytes });
  }

  listDir(path: string): Promise<FsResult> {
    return this.fs('list', { path });
  }

  usage(): Promise<FsResult> {
    return this.fs('usage');
  }

  /** Writes `content` in chunks of `chunkBytes` (one message each, the same id, `last` on the final one). */
  writeFile(
    path: string,
    content: Buffer | string,
    options: { append?: boolean; chunkBytes?: number } = {},
  ): Promise<FsResult> {
    const id = `f${++sequence}`;
    const bytes = Buffer.from(content);
    const step = options.chunkBytes ?? 1 << 20;
    for (let off = 0; off === 0 || off < bytes.length; off += step) {
      const last = off + step >= bytes.length;
      this.send({
        type: 'fs',
        id,
        op: 'write',
        path,
        append: options.append ?? false,
        data: bytes.subarray(off, off + step).toString('base64'),
        last,
      });
      if (last) break;
    }
    return this.fsResult(id);
  }

  /** Sends `reap`; resolves with the `reaped` reply. */
  async reap(timeoutMs = WAIT_MS): Promise<Message> {
    const id = `r${++sequence}`;
    this.send({ type: 'reap', id });
    return (await this.waitFor((m) => m.type === 'reaped' && m.id === id, timeoutMs)).msg;
  }

  private async fsResult(id: string, timeoutMs = WAIT_MS): Promise<FsResult> {
    const final = new Set(['fs-done', 'fs-list', 'fs-usage', 'fs-error']);
    const reply = (await this.waitFor((m) => m.id === id && final.has(m.type), timeoutMs)).msg;
    const messages = this.received.filter((r) => r.msg.id === id).map((r) => r.msg);
    const chunks = messages.filter((m) => m.type === 'fs-data').map((m) => Buffer.from(m.data as string, 'base64'));
    return { id, reply, messages, chunks, data: Buffer.concat(chunks) };
  }

  /** Every execution has exactly one `done`, and it is its last message. */
  checkFraming(): void {
    const ids = new Set(this.received.map((r) => r.msg.id));
    for (const id of ids) {
      const types = this.received.filter((r) => r.msg.id === id).map((r) => r.msg.type);
      if (types.includes('hello') || types.some((t) => t.startsWith('fs-') || t === 'reaped')) continue;
      expect(
        types.filter((t) => t === 'done'),
        `done count for ${String(id)}`,
      ).toHaveLength(1);
      expect(types.at(-1), `last message for ${String(id)}`).toBe('done');
    }
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/** The message types of an execution, with runs of consecutive `stream` messages collapsed into one. */
export function shape(run: Execution): string[] {
  const types = run.messages.map((r) => r.msg.type);
  return types.filter((t, i) => t !== 'stream' || types[i - 1] !== 'stream');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` every 20 ms until it holds; fails with `failure` after `timeoutMs`. */
export async function waitUntil(check: () => boolean, failure: string, timeoutMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(failure);
    await sleep(20);
  }
}

/** The pid of a process (seen from this machine's /proc) whose argv is exactly `argv`, or 0. */
export function findProcess(argv: string[]): number {
  const want = `${argv.join('\0')}\0`;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8') === want && !isGone(Number(name))) return Number(name);
    } catch {
      // gone
    }
  }
  return 0;
}

/** Whether process `pid` has ended (no longer in /proc, or a zombie). */
export function isGone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return ['Z', 'X'].includes(stat[stat.lastIndexOf(')') + 2]!);
  } catch {
    return true;
  }
}

/** The signals process `pid` ignores (SigIgn of /proc/PID/status). */
export function ignoredSignals(pid: number): number[] {
  const mask = BigInt(`0x${/^SigIgn:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '0'}`);
  return Array.from({ length: 64 }, (_, i) => i + 1).filter((sig) => (mask >> BigInt(sig - 1)) & 1n);
}

export interface SpawnedAgent {
  proc: ChildProcessWithoutNullStreams;
  client: JsonLinesClient;
  workspace: string;
  /** Everything the process wrote on its stderr so far. */
  stderr: () => string;
  /** Kills the process (with `detached`, its whole process group) and deletes the workspace. */
  stop: () => void;
}

/**
 * Starts `command` in a fresh workspace (also its cwd) with SANDPIT_CHANNEL=stdio, SANDPIT_WORKSPACE and then
 * `env` over this process's environment (undefined removes a variable), a client on its stdin/stdout.
 * `detached` puts it in a process group of its own.
 */
export function spawnAgent(
  command: string[],
  options: { workspacePrefix: string; env: Record<string, string | undefined>; detached?: boolean },
): SpawnedAgent {
  const workspace = mkdtempSync(join(tmpdir(), options.workspacePrefix));
  const [file, ...args] = command as [string, ...string[]];
  const proc = spawn(file, args, {
    cwd: workspace,
    env: { ...process.env, SANDPIT_CHANNEL: 'stdio', SANDPIT_WORKSPACE: workspace, ...options.env },
    detached: options.detached ?? false,
  });
  let stderr = '';
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (chunk: string) => (stderr += chunk));
  const client = new JsonLinesClient((text) => proc.stdin.write(text), proc.stdout);
  return {
    proc,
    client,
    workspace,
    stderr: () => stderr,
    stop: () => {
      if (options.detached) {
        try {
          process.kill(-proc.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      } else {
        proc.kill('SIGKILL');
      }
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** Connects a client to the agent's unix socket at `path`; the socket joins `sockets` (for the test to destroy) at once. */
export async function connectClient(path: string, sockets: Socket[]): Promise<JsonLinesClient> {
  const socket = createConnection(path);
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return new JsonLinesClient((text) => socket.write(text), socket);
}

/**
 * An agent started with SANDPIT_UNCONNECTED_EXIT_S=1 on the socket `path` (a warm sandbox left for a next core):
 * it serves while a host is connected, however long; a host that comes back within the second finds it with its
 * state; once no host has been connected for a second, it ends (`exited` turns true).
 */
export async function expectUnconnectedExit(path: string, exited: () => boolean, set: string, get: string, expected: string): Promise<void> {
  const sockets: Socket[] = [];
  try {
    await waitUntil(() => existsSync(path), 'the agent made its socket', 30_000);
    const first = await connectClient(path, sockets);
    await first.hello();
    await first.run(set);
    await sleep(1_500);
    expect(exited()).toBe(false); // connected: it stays
    sockets[0]?.destroy();
    await sleep(300);
    const second = await connectClient(path, sockets);
    await second.hello();
    await sleep(1_200);
    expect(exited()).toBe(false); // a host came back within the second: it stays
    const got = await second.run(get);
    expect(`${got.stdout}${got.result ?? ''}`).toContain(expected);
    sockets[1]?.destroy();
    await waitUntil(exited, 'the agent did not end with no host connected', 6_000);
  } finally {
    for (const socket of sockets) socket.destroy();
  }
}
