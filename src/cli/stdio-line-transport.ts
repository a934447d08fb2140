import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { describeToolInputLimits, formatSize, MCP_MAX_MESSAGE_BYTES } from '../core/mcp/mcp-limits';
import { isRequestId, parseJsonRpcMessage } from './json-rpc-message';
import { LineSplitter } from './line-splitter';
import type { SplitLine } from './line-splitter';
import { recoverRequestId } from './recover-request-id';

/** JSON-RPC's codes for a line that is not JSON, and for one that is not a valid message. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

/** A write to stdout that the client does not read for this long fails (the message stays queued). */
const DRAIN_TIMEOUT_MS = 60_000;

export interface StdioLineTransportOptions {
  /** Longest message read, in bytes without the newline (default: MCP_MAX_MESSAGE_BYTES). */
  maxMessageBytes?: number;
  drainTimeoutMs?: number;
}

/**
 * MCP over newline-delimited JSON on stdin/stdout, for `sandpit mcp` (host and bridge). Unlike the SDK's
 * StdioServerTransport, nothing the client sends can break it: a line longer than the limit is skipped as
 * it streams in (never buffered beyond the limit) and answered with an Invalid Request error carrying the
 * request's id when its ends show one; a line that is not JSON or not JSON-RPC gets an error too; every
 * later line is read as usual. `ended` resolves when the client is gone (stdin ended, closed or failed,
 * stdout failed), whatever happened before.
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  /** Why the client is gone: resolves once, never rejects. */
  readonly ended: Promise<string>;

  private readonly splitter: LineSplitter;
  private readonly maxMessageBytes: number;
  private readonly drainTimeoutMs: number;
  private endedWith!: (reason: string) => void;
  private started = false;
  private closed = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    options: StdioLineTransportOptions = {},
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? MCP_MAX_MESSAGE_BYTES;
    this.drainTimeoutMs = options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS;
    this.splitter = new LineSplitter(this.maxMessageBytes);
    this.ended = new Promise((resolve) => {
      this.endedWith = resolve;
    });
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('StdioLineTransport already started (connect() starts it).');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('close', this.onInputClose);
    this.stdin.on('error', this.onInputError);
    this.stdout.on('error', this.onOutputError);
    this.stdin.resume();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('The stdio transport is closed.'));
    return new Promise((resolve, reject) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) {
        resolve();
        return;
      }
      const done = (error?: Error): void => {
        clearTimeout(timer);
        this.stdout.off('drain', onDrain);
        this.stdout.off('close', onClose);
        this.stdout.off('error', done);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = (): void => done();
      const onClose = (): void => done(new Error('stdout closed before the message was written.'));
      const timer = setTimeout(
        () => done(new Error(`The client did not read stdout for ${this.drainTimeoutMs} ms.`)),
        this.drainTimeoutMs,
      );
      timer.unref();
      this.stdout.once('drain', onDrain);
      this.stdout.once('close', onClose);
      this.stdout.once('error', done);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onInputClose);
    this.stdin.off('error', this.onInputError);
    this.stdout.off('error', this.onOutputError);
    // Nobody reads stdin any more: stop reading it so the process can exit.
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.splitter.reset();
    this.finish('the transport was closed');
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const lines = this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    for (const line of lines) {
      if (this.closed) return;
      this.handle(line);
    }
  };

  private readonly onEnd = (): void => this.finish('stdin ended');
  private readonly onInputClose = (): void => this.finish('stdin closed');
  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
    this.finish(`stdin failed: ${error.message}`);
  };
  private readonly onOutputError = (error: Error): void => {
    this.onerror?.(error);
    this.finish(`stdout failed: ${error.message}`);
  };

  private finish(reason: string): void {
    this.splitter.reset();
    this.endedWith(reason);
  }

  private handle(line: SplitLine): void {
    if (line.kind === 'oversized') {
      const limit = `${this.maxMessageBytes} bytes (${formatSize(this.maxMessageBytes)})`;
      this.refuse(
        recoverRequestId(line.head, line.tail),
        INVALID_REQUEST,
        `Invalid Request: the message was ${line.bytes} bytes, over the limit of ${limit} for one message on stdio; it was skipped. ${describeToolInputLimits()}`,
      );
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.refuse(
        null,
        PARSE_ERROR,
        `Parse error: a line on stdin is not JSON (${why}); every line must be one JSON-RPC message.`,
      );
      return;
    }
    const message = parseJsonRpcMessage(value);
    if (!message) {
      this.refuse(
        requestIdOf(value),
        INVALID_REQUEST,
        'Invalid Request: the line is JSON but not a JSON-RPC 2.0 request, notification or response (one message per line; batches are not supported).',
      );
      return;
    }
    this.onmessage?.(message);
  }

  /** Answers a message that cannot be read: reported to onerror as well, the connection stays up. */
  private refuse(id: RequestId | null, code: number, message: string): void {
    this.onerror?.(new Error(message.slice(0, 200)));
    // JSON-RPC 2.0: an error about a message whose id cannot be known carries id null.
    const answer = { jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage;
    this.send(answer).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  }
}

/** The id of something that looks like a request (has a method), for answering it; else null. */
function requestIdOf(value: unknown): RequestId | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  if (!('method' in record)) return null;
  return isRequestId(record.id) ? record.id : null;
}
