import { request } from 'node:http';
import type { ClientRequest } from 'node:http';

/** One answer of `/mcp`: the status, the session id it names, and the JSON-RPC messages of its body (JSON or SSE). */
export interface McpHttpAnswer {
  status: number;
  sessionId?: string;
  retryAfter?: string;
  messages: Array<{ id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } }>;
}

/**
 * MCP over HTTP without the SDK client: single POSTs, as a flood (or a careless client) sends them, and GET
 * streams held open on purpose.
 */
export class RawMcpHttp {
  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  async post(body: unknown, sessionId?: string): Promise<McpHttpAnswer> {
    const res = await fetch(`${this.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${this.token}`,
        ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } : {}),
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const payloads = type.includes('text/event-stream')
      ? text
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
      : text.trim() === ''
        ? []
        : [text];
    return {
      status: res.status,
      sessionId: res.headers.get('mcp-session-id') ?? undefined,
      retryAfter: res.headers.get('retry-after') ?? undefined,
      messages: payloads.map((p) => JSON.parse(p) as McpHttpAnswer['messages'][number]),
    };
  }

  /** initialize (and `initialized` unless told not to); resolves with the new session's id. */
  async initialize(name: string, initialized = true): Promise<McpHttpAnswer & { sessionId: string }> {
    const answer = await this.post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '0' } },
    });
    if (answer.status !== 200 || !answer.sessionId) {
      throw new Error(`initialize answered ${answer.status}: ${JSON.stringify(answer.messages)}`);
    }
    if (initialized) await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, answer.sessionId);
    return { ...answer, sessionId: answer.sessionId };
  }

  async call(sessionId: string, id: number, name: string, args: Record<string, unknown>): Promise<McpHttpAnswer> {
    return this.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }, sessionId);
  }

  /** Opens the session's GET stream; resolves with its status once the headers are in, and a way to close it. */
  openStream(sessionId: string): Promise<{ status: number; close(): void }> {
    const url = new URL(`${this.url}/mcp`);
    return new Promise((resolve, reject) => {
      const req: ClientRequest = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'GET',
          agent: false,
          headers: {
            accept: 'text/event-stream',
            authorization: `Bearer ${this.token}`,
            'mcp-session-id': sessionId,
            'mcp-protocol-version': '2025-06-18',
          },
        },
        (res) => {
          // Open on purpose from here on: only the caller ends it.
          req.setTimeout(0);
          res.on('error', () => undefined);
          res.resume();
          resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
        },
      );
      req.on('error', reject);
      req.setTimeout(30_000, () => req.destroy(new Error('the GET stream did not answer')));
      req.end();
    });
  }
}
