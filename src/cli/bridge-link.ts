import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/log';
import { withTimeout } from '../core/util/with-timeout';
import type { RunningInstance } from './find-instance';
import { isJsonRpcRequest, isJsonRpcResult } from './json-rpc-message';
import { McpHttpForwarder, McpSessionGone } from './mcp-http-forwarder';

/** How long a call made while the instance is away waits for it to come back before it is answered with an error. */
export const AWAY_WAIT_MS = 20_000;
/** First and longest pause between two tries to reach the instance again. */
export const RETRY_FIRST_MS = 200;
export const RETRY_MAX_MS = 5_000;
/** How long one look for the instance (instance.json, token, /health) may take. */
const FIND_TIMEOUT_MS = 3_000;
/** How long the instance has to answer the repeated `initialize` of a new MCP session. */
const INITIALIZE_TIMEOUT_MS = 10_000;
/** The ids of the bridge's own `initialize` requests (never sent to the client). */
const OWN_ID_PREFIX = 'sandpit-bridge-initialize-';

/** Errors of a connection that never reached the server: the message can be sent again once it is back. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'EADDRNOTAVAIL']);
/** Errors of a connection that broke: the instance is gone (what was in flight may or may not have run). */
const BROKEN_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT']);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The words a caller reads when the instance is away for longer than a call waits. */
export function awayMessage(url: string): string {
  return `Sandpit at ${url} is not answering (it stopped or is restarting). This connection keeps trying to reach it and comes back on its own once it is running; try again in a moment.`;
}

/**
 * The bridge's link to the running instance, over MCP's Streamable HTTP, that survives the instance restarting or
 * going away and coming back: when a message cannot reach it (connection refused, or the instance no longer knows
 * the MCP session), the link finds the instance again (its data folder says where: the port and token may change),
 * opens a new MCP session with the client's own `initialize`, and sends the message there. Calls made meanwhile
 * wait up to AWAY_WAIT_MS, then get a plain error; a call in flight when the instance went away ends with an error
 * (the forwarder says so). Tries are spaced RETRY_FIRST_MS … RETRY_MAX_MS apart, every wait with a timeout.
 */
export class BridgeLink {
  /** A message from the instance for the client. */
  onmessage?: (message: JSONRPCMessage) => void;

  private forwarder: McpHttpForwarder;
  private instance: RunningInstance;
  /** The client's own `initialize` request, repeated for every new MCP session. */
  private initialize: JSONRPCRequest | undefined;
  private readonly initializeIds = new Set<RequestId>();
  /** The client's initialize was answered: a new MCP session must be opened with it before anything else goes there. */
  private initialized = false;
  private reconnecting: Promise<boolean> | undefined;
  private ownInitialize: { id: string; answered: (version: string | undefined) => void } | undefined;
  private reconnects = 0;
  private closed = false;

  constructor(
    instance: RunningInstance,
    private readonly rediscover: () => Promise<RunningInstance | undefined>,
    private readonly log: Logger,
    private readonly awayWaitMs = AWAY_WAIT_MS,
  ) {
    this.instance = instance;
    this.forwarder = this.open(instance);
  }

  get url(): string {
    return this.instance.url;
  }

  /** Sends one client message; rejects (with words for the client) when it cannot be delivered. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (isJsonRpcRequest(message) && message.method === 'initialize') {
      this.initialize = message;
      this.initializeIds.add(message.id);
    }
    if (this.reconnecting) await this.waitForInstance();
    try {
      await this.forwarder.send(message);
    } catch (error) {
      const code = codeOf(error);
      const notSent = error instanceof McpSessionGone || (code !== undefined && NOT_SENT_CODES.has(code));
      if (!notSent && !(code !== undefined && BROKEN_CODES.has(code))) throw error;
      this.log.warn('the running Sandpit cannot be reached; reconnecting', { url: this.instance.url, error: messageOf(error) });
      void this.reconnect();
      // Never reached the instance: send it again once it is back. Broken mid-way: it may have run, so say so.
      if (!notSent) throw new Error(`The connection to Sandpit at ${this.instance.url} broke (${messageOf(error)}); it comes back on its own, try again in a moment.`);
      await this.waitForInstance();
      await this.forwarder.send(message);
    }
  }

  /** Ends the MCP session at the instance (its sandboxes stop) and closes the link. */
  async close(): Promise<void> {
    this.closed = true;
    await this.forwarder.terminate();
  }

  private async waitForInstance(): Promise<void> {
    const back = await withTimeout(this.reconnect(), this.awayWaitMs, 'Reconnecting to Sandpit').catch(() => false);
    if (!back) throw new Error(awayMessage(this.instance.url));
  }

  private open(instance: RunningInstance): McpHttpForwarder {
    const forwarder = new McpHttpForwarder(new URL(`${instance.url}/mcp`), instance.token);
    forwarder.onmessage = (message) => {
      if (forwarder !== this.forwarder) return;
      if (isJsonRpcResult(message) || 'error' in message) {
        const id = (message as { id?: RequestId }).id;
        if (this.ownInitialize && id === this.ownInitialize.id) {
          const version = isJsonRpcResult(message) ? (message.result as { protocolVersion?: unknown }).protocolVersion : undefined;
          this.ownInitialize.answered(typeof version === 'string' ? version : undefined);
          return;
        }
        // Later requests carry the negotiated version, as the protocol asks of a client.
        if (isJsonRpcResult(message) && id !== undefined && this.initializeIds.delete(id)) {
          const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
          if (typeof version === 'string') forwarder.setProtocolVersion(version);
          this.initialized = true;
        }
      }
      this.onmessage?.(message);
    };
    forwarder.onerror = (error) => this.log.warn('MCP HTTP error', { url: instance.url, error: error.message });
    forwarder.onserverstreamend = () => this.log.info('the running Sandpit closed its stream', { url: instance.url });
    return forwarder;
  }

  /** One reconnection at a time; it keeps trying (with growing pauses) until the instance is back (true) or the link closes (false). */
  private reconnect(): Promise<boolean> {
    this.reconnecting ??= this.reconnectLoop().finally(() => {
      this.reconnecting = undefined;
    });
    return this.reconnecting;
  }

  private async reconnectLoop(): Promise<boolean> {
    let pause = RETRY_FIRST_MS;
    for (;;) {
      if (this.closed) return false;
      const found = await withTimeout(this.rediscover(), FIND_TIMEOUT_MS, 'Looking for the running Sandpit').catch(() => undefined);
      if (found) {
        try {
          await this.reopen(found);
          return true;
        } catch (error) {
          this.log.warn('could not open a new MCP session with the running Sandpit', { url: found.url, error: messageOf(error) });
        }
      }
      await new Promise((resolve) => setTimeout(resolve, pause).unref());
      pause = Math.min(pause * 2, RETRY_MAX_MS);
    }
  }

  /** A new MCP session at `found`, opened with the client's own initialize (its answer stays here). */
  private async reopen(found: RunningInstance): Promise<void> {
    const old = this.forwarder;
    const next = this.open(found);
    this.forwarder = next;
    this.instance = found;
    void old.terminate().catch(() => undefined);
    // Before the client's own initialize was answered, the message sent again next is that initialize itself.
    if (!this.initialize || !this.initialized) return;
    this.reconnects += 1;
    const id = `${OWN_ID_PREFIX}${this.reconnects}`;
    const answered = new Promise<string | undefined>((resolve) => {
      this.ownInitialize = { id, answered: resolve };
    });
    try {
      await next.send({ ...this.initialize, id });
      const version = await withTimeout(answered, INITIALIZE_TIMEOUT_MS, 'The new MCP session');
      if (version === undefined) throw new Error('the running Sandpit refused the initialize request');
      next.setProtocolVersion(version);
      await next.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    } finally {
      this.ownInitialize = undefined;
    }
    this.log.info('reconnected to the running Sandpit', { url: found.url });
  }
}
