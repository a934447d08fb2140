import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, chown, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { SandpitError } from '../../shared/api/errors';
import { readSocketInto } from '../sandbox/chunk-reader';
import { doneWith } from '../util/lent-buffers';
import type { SandboxExecOptions, SandboxExecResult } from '../sandbox/sandbox-backend';
import type { HostMessage } from '../sandbox/protocol';
import type { ReplyCollector } from './agent-requests';
import type { WorkspaceExec } from './workspace-tar';

/** What a pipe needs of the session's sandbox: a socket in its agent folder, and its agent's requests. */
export interface PipeSandbox {
  tunnelSocket?(name: string): { hostPath: string; insidePath: string; uid: number } | undefined;
}
/** The agent's requests, as the session's driver sends them (declared here: the driver itself uses the pipe). */
export interface PipeAgent {
  request<T>(build: (id: string) => HostMessage[], collect: ReplyCollector<T>, timeoutMs: number, what: string): Promise<T>;
}

const TOKEN_BYTES = 32;
/** How long the agent has to connect and say the token once asked. */
const CONNECT_TIMEOUT_MS = 15_000;
/** What the program may say on stderr unless the caller says otherwise. */
const DEFAULT_MAX_STDERR = 256 * 1024;

let counter = 0;

/**
 * Writes `stdin` (a buffer or a stream) to the connection, then ends its writing side (the program's EOF). A stream's
 * chunks are written as they come, the stream paused while the connection is full (as `pipe` does); each chunk is
 * given back once its bytes have left (lent-buffers.ts), and the stream is destroyed if the connection closes first.
 */
function feed(socket: Socket, stdin: Buffer | Readable | undefined): void {
  if (stdin === undefined) return;
  if (Buffer.isBuffer(stdin)) {
    socket.end(stdin);
    return;
  }
  stdin.on('error', (error) => socket.destroy(error));
  stdin.on('data', (chunk: Buffer) => {
    if (!socket.write(chunk, () => doneWith(chunk))) stdin.pause();
  });
  socket.on('drain', () => stdin.resume());
  stdin.once('end', () => socket.end());
  socket.once('close', () => {
    if (!stdin.readableEnded) stdin.destroy();
  });
}

/**
 * The first connection that opens with `token` and a newline: the agent's (another process of the sandbox that
 * found the socket gets closed). Resolves with the connection, its remaining bytes unread.
 */
function acceptAgent(server: Server, token: Buffer, timeoutMs: number, signal: AbortSignal): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const timer = setTimeout(() => done(new SandpitError('EXEC_TIMEOUT', `The sandbox's agent did not connect within ${Math.round(timeoutMs / 1000)} s.`)), timeoutMs);
    const onAbort = (): void => done(new SandpitError('EXEC_FAILED', 'The transfer was cut short.'));
    signal.addEventListener('abort', onAbort, { once: true });
    let settled = false;
    function done(error: Error | undefined, socket?: Socket): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      // onConnection stays: any later connection is closed unheard.
      if (error) reject(error);
      else resolve(socket!);
    }
    function onConnection(socket: Socket): void {
      if (settled) {
        socket.destroy();
        return;
      }
      let head = Buffer.alloc(0);
      const onData = (chunk: Buffer): void => {
        head = Buffer.concat([head, chunk]);
        const nl = head.indexOf(10);
        if (nl < 0 && head.length <= token.length) return;
        socket.off('data', onData);
        socket.pause();
        const said = head.subarray(0, Math.max(nl, 0));
        if (nl !== token.length || !timingSafeEqual(said, token)) {
          socket.destroy();
          return;
        }
        const rest = head.subarray(nl + 1);
        if (rest.length > 0) socket.unshift(rest);
        done(undefined, socket);
      };
      socket.on('data', onData);
      socket.on('error', () => socket.destroy());
      socket.resume();
    }
    server.on('connection', onConnection);
  });
}

/**
 * A program run in the sandbox by its agent (the `pipe` fs operation, executor-image/agents/PROTOCOL.md) with its
 * stdin and stdout through a unix socket in the session's agent folder: the same contract as the engine's exec
 * (`WorkspaceExec`) for the workspace's bulk reads and writes, without the engine's exec stream (its start and
 * its copies cost seconds on a busy engine, ~30× tar itself) or base64 in JSON lines. The socket is the
 * sandbox user's (mode 0600) in a folder the sandbox cannot list, named at random; only a connection that opens
 * with the one-time token, sent to the agent on its private channel, is taken. What comes back is parsed as
 * untrusted by the caller, as the exec's output is. Undefined where the agent cannot (no `pipe` feature, no
 * folder shared with the host: gVisor, a remote engine): the caller uses the engine's exec then.
 */
export function agentPipe(agent: PipeAgent, sandbox: PipeSandbox, canPipe: boolean): WorkspaceExec | undefined {
  if (!canPipe || !sandbox.tunnelSocket?.('pipe-probe.sock')) return undefined;
  const exec = async (argv: string[], options: SandboxExecOptions): Promise<SandboxExecResult> => {
    const name = `pipe-${process.pid.toString(36)}-${(counter += 1).toString(36)}-${randomBytes(4).toString('hex')}.sock`;
    const where = sandbox.tunnelSocket!(name);
    if (!where) throw new SandpitError('EXEC_FAILED', 'The sandbox has no folder shared with the host any more.');
    const token = randomBytes(TOKEN_BYTES).toString('hex');
    const abort = new AbortController();
    const onOuterAbort = (): void => abort.abort();
    options.signal?.addEventListener('abort', onOuterAbort, { once: true });
    const server = createServer({ allowHalfOpen: true });
    let socket: Socket | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(where.hostPath, () => {
          server.off('error', reject);
          resolve();
        });
      });
      await chown(where.hostPath, where.uid, where.uid);
      await chmod(where.hostPath, 0o600);
      const collect: ReplyCollector<{ exitCode: number; stderr: string }> = (reply) => {
        if (reply.type === 'fs-exit') return { exitCode: reply.exitCode, stderr: reply.stderr };
        if (reply.type === 'fs-error') throw new SandpitError('EXEC_FAILED', `The sandbox could not run ${argv[0] ?? 'the program'}: ${reply.message.slice(0, 500)}`);
        throw new SandpitError('EXEC_FAILED', `The sandbox answered a pipe with "${reply.type}".`);
      };
      const ended = agent.request(
        (id) => [{ type: 'fs', id, op: 'pipe', argv, socket: name, token, stdin: options.stdin !== undefined, stdout: options.stdoutTo !== undefined || options.stdoutReader !== undefined, maxStderr: options.maxOutputBytes ?? DEFAULT_MAX_STDERR }],
        collect,
        options.timeoutMs,
        `running ${argv[0] ?? 'a program'}`,
      );
      // A refusal (no such program, a bad request) or the channel's end stops the wait for the connection.
      ended.catch(() => abort.abort());
      socket = await acceptAgent(server, Buffer.from(token, 'ascii'), CONNECT_TIMEOUT_MS, abort.signal).catch(async (error: unknown) => {
        await ended;
        throw error;
      });
      server.close();
      // A reader takes stdout read by read into one buffer (chunk-reader.ts): the socket it reads through is the one used from now on.
      const conn = options.stdoutReader ? readSocketInto(socket, options.stdoutReader) : socket;
      socket = conn;
      abort.signal.addEventListener('abort', () => conn.destroy(), { once: true });
      const drained = new Promise<void>((resolve, reject) => {
        if (options.stdoutTo) conn.pipe(options.stdoutTo);
        else if (!options.stdoutReader) conn.resume();
        conn.on('end', resolve);
        conn.on('close', () => resolve());
        conn.on('error', reject);
      });
      // Its failure is seen where it is awaited, below: a socket error while the agent's answer is awaited is no
      // unhandled rejection.
      drained.catch(() => undefined);
      feed(conn, options.stdin);
      if (options.stdin === undefined) conn.end();
      const outcome = await ended;
      await drained;
      return { exitCode: outcome.exitCode, stdout: '', stderr: outcome.stderr, timedOut: false };
    } catch (error) {
      socket?.destroy();
      // Cut, not ended: a reader of it sees the stream stop short (the error itself is thrown here).
      if (options.stdoutTo && !options.stdoutTo.destroyed) options.stdoutTo.destroy();
      throw error;
    } finally {
      options.signal?.removeEventListener('abort', onOuterAbort);
      server.close();
      await rm(where.hostPath, { force: true }).catch(() => undefined);
    }
  };
  return { exec };
}
