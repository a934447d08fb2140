import { Agent, request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { APPROVAL_ENV, APPROVAL_HEADER, ASSISTANT_ENV, ASSISTANT_HEADER, assistantIdOf, BRIDGE_HEADER } from '../shared/domain/assistant-tag';
import { isJsonRpcRequest } from './json-rpc-message';
import { SseParser } from './sse-parser';

/** How long the server has to end the MCP session when the bridge closes. */
const TERMINATE_TIMEOUT_MS = 5_000;
/** How long the server has to start answering one POST (its answer may then stream for as long as a run lasts). */
const HEADERS_TIMEOUT_MS = 30_000;

/** The instance answered 404 for our MCP session id: it restarted (or the session expired), and never saw the message. */
export class McpSessionGone extends Error {
  constructor() {
    super('The Sandpit instance no longer knows this MCP session (it restarted or the session expired).');
    this.name = 'McpSessionGone';
  }
}

/**
 * The client side of MCP's Streamable HTTP, for the bridge: each message is POSTed to `url` with the
 * bearer token; what comes back (one JSON message, or an event stream of them) goes to `onmessage`; the
 * server's own stream (GET) is opened once the session exists; `terminate` ends the session (DELETE).
 * Plain node:http on one kept-alive connection pool: the first answer does not wait for fetch to load.
 */
export class McpHttpForwarder {
  onmessage?: (message: JSONRPCMessage) => void;
  /** A stream's message could not be read, or the server's stream failed. */
  onerror?: (error: Error) => void;
  /** The server ended the MCP session (404 for our session id, or its stream closed for good). */
  onclose?: () => void;
  /** The server's own stream (GET) ended while the bridge was open: the instance stopped or restarted. */
  onserverstreamend?: () => void;

  private readonly agent = new Agent({ keepAlive: true, maxSockets: 32 });
  /** The assistant that started this `sandpit mcp` from a configuration Connect wrote (sent along, so the panel can say it connected). */
  private readonly assistant = assistantIdOf(process.env[ASSISTANT_ENV]);
  /** The approval policy its configuration asks for, passed on as it is (the running Sandpit checks it, and it only ever tightens). */
  private readonly approval = /^[a-z-]{1,32}$/.test(process.env[APPROVAL_ENV] ?? '') ? process.env[APPROVAL_ENV] : undefined;
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private serverStream: IncomingMessage | undefined;
  private closed = false;

  constructor(
    private readonly url: URL,
    private readonly token: string,
  ) {}

  /** The version `initialize` settled on: sent on every later request, as the protocol asks. */
  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  /** POSTs one message; resolves once the server has started answering (its messages follow on `onmessage`). */
  async send(message: JSONRPCMessage): Promise<void> {
    const response = await this.request('POST', { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, JSON.stringify(message));
    const status = response.statusCode ?? 0;
    const sessionId = response.headers['mcp-session-id'];
    const opened = typeof sessionId === 'string' && this.sessionId === undefined;
    if (typeof sessionId === 'string') this.sessionId = sessionId;
    if (status === 404 && this.sessionId !== undefined) {
      response.resume();
      this.onclose?.();
      throw new McpSessionGone();
    }
    if (status >= 400) throw new Error(`HTTP ${status}: ${(await readText(response)).slice(0, 500)}`);
    this.read(response, isJsonRpcRequest(message) ? message.id : undefined);
    if (opened) this.openServerStream();
  }

  /** Ends the MCP session at the server (its sandboxes stop) and closes every connection. */
  async terminate(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.serverStream?.destroy();
    try {
      if (this.sessionId !== undefined) {
        const response = await this.request('DELETE', {}, undefined, TERMINATE_TIMEOUT_MS);
        response.resume();
      }
    } finally {
      this.agent.destroy();
    }
  }

  /**
   * Messages from a response: one JSON message (or a batch), an event stream of them, or nothing (202).
   * When the answer to request `id` was due here and the response ends without it (the instance went away
   * mid-run), the client is told so as that request's error: it never waits for an answer that cannot come.
   */
  private read(response: IncomingMessage, id?: RequestId): void {
    let answered = id === undefined;
    const deliver = (text: string): void => {
      for (const message of this.parse(text)) {
        if (!answered && 'id' in message && message.id === id && !('method' in message)) answered = true;
        this.onmessage?.(message);
      }
    };
    const ended = (): void => {
      if (answered || this.closed) return;
      answered = true;
      this.onmessage?.({
        jsonrpc: '2.0',
        id: id as RequestId,
        error: {
          code: -32603,
          message: `The Sandpit instance at ${this.url.origin} closed the connection before answering: it stopped or is restarting, so this call did not finish. The connection comes back on its own; try the call again in a moment.`,
        },
      });
    };
    const type = String(response.headers['content-type'] ?? '');
    if (type.includes('text/event-stream')) {
      const parser = new SseParser();
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        for (const data of parser.push(chunk)) deliver(data);
      });
      response.on('error', (error) => this.onerror?.(error));
      response.on('close', ended);
    } else if (type.includes('application/json')) {
      readText(response).then(
        (text) => {
          deliver(text);
          ended();
        },
        (error: unknown) => {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          ended();
        },
      );
    } else {
      response.resume();
      response.on('close', ended);
    }
  }

  private parse(text: string): JSONRPCMessage[] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.onerror?.(new Error(`The Sandpit instance sent a message that is not JSON: ${text.slice(0, 200)}`));
      return [];
    }
    return (Array.isArray(parsed) ? parsed : [parsed]).filter((m): m is JSONRPCMessage => typeof m === 'object' && m !== null);
  }

  /** The server's own stream (notifications not tied to a request); a server without one answers 405. */
  private openServerStream(): void {
    this.request('GET', { accept: 'text/event-stream' }, undefined, HEADERS_TIMEOUT_MS).then(
      (response) => {
        if (response.statusCode !== 200 || this.closed) {
          response.resume();
          return;
        }
        this.serverStream = response;
        response.on('close', () => {
          if (!this.closed) this.onserverstreamend?.();
        });
        this.read(response);
      },
      (error: unknown) => {
        if (!this.closed) this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      },
    );
  }

  private request(method: string, headers: Record<string, string>, body?: string, timeoutMs = HEADERS_TIMEOUT_MS): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = request(this.url, {
        method,
        agent: this.agent,
        headers: {
          ...headers,
          authorization: `Bearer ${this.token}`,
          [BRIDGE_HEADER]: 'stdio',
          ...(this.assistant !== undefined ? { [ASSISTANT_HEADER]: this.assistant } : {}),
          ...(this.approval ? { [APPROVAL_HEADER]: this.approval } : {}),
          ...(this.sessionId !== undefined ? { 'mcp-session-id': this.sessionId } : {}),
          ...(this.protocolVersion !== undefined ? { 'mcp-protocol-version': this.protocolVersion } : {}),
          ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
        },
      });
      const timer = setTimeout(() => req.destroy(new Error(`The Sandpit instance at ${this.url.origin} did not answer within ${timeoutMs / 1000} s.`)), timeoutMs);
      req.on('response', (response) => {
        clearTimeout(timer);
        resolve(response);
      });
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      req.end(body);
    });
  }
}

function readText(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (text += chunk));
    response.on('end', () => resolve(text));
    response.on('error', reject);
  });
}
