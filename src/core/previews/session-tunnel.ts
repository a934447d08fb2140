import { randomBytes } from 'node:crypto';
import { chmod, chown, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { SandpitError } from '../../shared/api/errors';
import type { Logger } from '../log';

const HELLO_MAX_BYTES = 1024;
const OPEN_TIMEOUT_MS = 10_000;

/** Why a connection to a port inside a sandbox could not be made, in plain words. */
export function nothingListens(port: number): SandpitError {
  return new SandpitError('INVALID_INPUT', `nothing listens on port ${port} in this session; start your app first`, {
    port,
  });
}

interface Control {
  socket: Socket;
  port: number;
}

/**
 * The host's end of a session's preview tunnel: a unix socket it listens on in the session's agent folder
 * (owned by the sandbox user, in a folder only root may write to). Forwarders inside the sandbox connect to it:
 * one control connection per port, and one data connection per TCP connection the host asks for. The host
 * never connects anywhere: a sandbox can only answer, never make the host reach a host port, another
 * session, or an agent socket.
 */
export class SessionTunnel {
  private server: Server | undefined;
  private readonly secret = randomBytes(32).toString('base64url');
  private readonly controls = new Map<number, Control>();
  private readonly controlWaiters = new Map<number, Array<() => void>>();
  private readonly pending = new Map<
    string,
    { resolve(socket: Socket): void; reject(error: Error): void; timer: NodeJS.Timeout }
  >();
  private closed = false;

  constructor(
    readonly hostPath: string,
    readonly insidePath: string,
    private readonly uid: number,
    private readonly log: Logger,
  ) {}

  /** The secret forwarders present (they get it in their argv). */
  get forwarderSecret(): string {
    return this.secret;
  }

  async listen(): Promise<void> {
    await rm(this.hostPath, { force: true });
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.hostPath, () => resolve());
    });
    this.server = server;
    await chown(this.hostPath, this.uid, this.uid);
    await chmod(this.hostPath, 0o600);
  }

  /** Whether a forwarder for `port` is connected. */
  hasForwarder(port: number): boolean {
    return this.controls.has(port);
  }

  /** Resolves once a forwarder for `port` said hello, false after `timeoutMs`. */
  waitForForwarder(port: number, timeoutMs: number): Promise<boolean> {
    if (this.controls.has(port)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      const list = this.controlWaiters.get(port) ?? [];
      list.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
      this.controlWaiters.set(port, list);
    });
  }

  /** A new byte stream to `port` on the sandbox's loopback (one TCP connection there). */
  open(port: number): Promise<Socket> {
    const control = this.controls.get(port);
    if (!control || this.closed)
      return Promise.reject(
        new SandpitError('CONTAINER_DIED', `The preview of port ${port} is not connected to its sandbox any more.`),
      );
    const id = randomBytes(12).toString('hex');
    return new Promise<Socket>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new SandpitError('EXEC_TIMEOUT', `The app on port ${port} did not take the connection within 10 seconds.`),
        );
      }, OPEN_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      control.socket.write(`${JSON.stringify({ open: id })}\n`);
    });
  }

  /** Forgets the forwarder of `port` (its control connection is closed: the forwarder ends). */
  dropPort(port: number): void {
    this.controls.get(port)?.socket.destroy();
    this.controls.delete(port);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const { socket } of this.controls.values()) socket.destroy();
    this.controls.clear();
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new SandpitError('CONTAINER_DIED', 'The preview ended.'));
      this.pending.delete(id);
    }
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    await rm(this.hostPath, { force: true }).catch(() => undefined);
  }

  /** A connection from inside the sandbox: its first line says what it is. */
  private accept(socket: Socket): void {
    let head = Buffer.alloc(0);
    const fail = (why: string): void => {
      this.log.warn('refused a tunnel connection from the sandbox', { why });
      socket.destroy();
    };
    const timer = setTimeout(() => fail('no hello in time'), OPEN_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const newline = head.indexOf(0x0a);
      if (newline < 0) {
        if (head.length > HELLO_MAX_BYTES) fail('hello too long');
        return;
      }
      clearTimeout(timer);
      socket.off('data', onData);
      const rest = head.subarray(newline + 1);
      let hello: { secret?: unknown; role?: unknown; port?: unknown; conn?: unknown };
      try {
        hello = JSON.parse(head.subarray(0, newline).toString('utf8')) as typeof hello;
      } catch {
        return fail('hello not JSON');
      }
      if (hello.secret !== this.secret) return fail('wrong secret');
      if (hello.role === 'control' && typeof hello.port === 'number') return this.control(socket, hello.port, rest);
      if (hello.role === 'data' && typeof hello.conn === 'string') {
        const waiting = this.pending.get(hello.conn);
        if (!waiting) return fail('unknown connection id');
        this.pending.delete(hello.conn);
        clearTimeout(waiting.timer);
        socket.pause();
        if (rest.length > 0) socket.unshift(rest);
        waiting.resolve(socket);
        return;
      }
      fail('unknown role');
    };
    socket.on('data', onData);
    socket.on('error', () => socket.destroy());
  }

  private control(socket: Socket, port: number, rest: Buffer): void {
    this.controls.get(port)?.socket.destroy();
    this.controls.set(port, { socket, port });
    let buf = rest.toString('utf8');
    socket.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      let newline: number;
      while ((newline = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, newline);
        buf = buf.slice(newline + 1);
        try {
          const message = JSON.parse(line) as { refused?: unknown };
          const waiting = typeof message.refused === 'string' ? this.pending.get(message.refused) : undefined;
          if (waiting && typeof message.refused === 'string') {
            this.pending.delete(message.refused);
            clearTimeout(waiting.timer);
            waiting.reject(nothingListens(port));
          }
        } catch {
          // a line that is not ours: ignored
        }
      }
      if (buf.length > 64 * 1024) socket.destroy();
    });
    socket.on('close', () => {
      if (this.controls.get(port)?.socket === socket) this.controls.delete(port);
    });
    for (const wake of this.controlWaiters.get(port)?.splice(0) ?? []) wake();
  }
}
