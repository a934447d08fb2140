import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { pollUntil } from '../core/util/with-timeout';
import { McpHttpForwarder } from './mcp-http-forwarder';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A loopback stand-in for a Sandpit instance's /mcp, answering with `handler`. */
async function instance(handler: Handler): Promise<{ url: URL; server: Server; seen: Array<{ method: string; headers: IncomingMessage['headers'] }> }> {
  const seen: Array<{ method: string; headers: IncomingMessage['headers'] }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', headers: req.headers });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), server, seen };
}

const INITIALIZE: JSONRPCMessage = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

describe('McpHttpForwarder', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('sends the token, keeps the session id and version, reads an event stream and a JSON answer, and ends the session', async () => {
    const fake = await instance((req, res, body) => {
      if (req.method === 'GET') return res.writeHead(405).end();
      if (req.method === 'DELETE') return res.writeHead(200).end();
      const message = JSON.parse(body) as { id?: number; method: string };
      if (message.id === undefined) return res.writeHead(202).end();
      if (message.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'sess-1' });
        res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}\n\n');
        res.end(`data: {"jsonrpc":"2.0","id":${message.id},"result":{"protocolVersion":"2025-06-18"}}\n\n`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }));
    });
    server = fake.server;
    const forwarder = new McpHttpForwarder(fake.url, 'tok');
    const got: JSONRPCMessage[] = [];
    forwarder.onmessage = (m) => got.push(m);
    await forwarder.send(INITIALIZE);
    forwarder.setProtocolVersion('2025-06-18');
    await forwarder.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await forwarder.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await pollUntil(() => (got.length === 3 ? true : undefined), 5_000, 'three messages');
    expect(got.map((m) => ('id' in m ? m.id : 'method' in m ? m.method : '?'))).toEqual(['notifications/message', 1, 2]);
    await forwarder.terminate();
    expect(fake.seen.every((r) => r.headers.authorization === 'Bearer tok')).toBe(true);
    const posts = fake.seen.filter((r) => r.method === 'POST');
    expect(posts[0]?.headers['mcp-session-id']).toBeUndefined();
    expect(posts.slice(1).map((r) => [r.headers['mcp-session-id'], r.headers['mcp-protocol-version']])).toEqual([
      ['sess-1', '2025-06-18'],
      ['sess-1', '2025-06-18'],
    ]);
    expect(fake.seen.at(-1)).toMatchObject({ method: 'DELETE', headers: { 'mcp-session-id': 'sess-1' } });
  });

  it('tells the client when the instance goes away before answering a request: an error for that id, no hang', async () => {
    const fake = await instance((req, res) => {
      if (req.method !== 'POST') return res.writeHead(405).end();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'sess-2' });
      res.write(': started\n\n');
      // The instance dies mid-run: the stream is cut without the answer.
      setTimeout(() => res.destroy(), 50);
    });
    server = fake.server;
    const forwarder = new McpHttpForwarder(fake.url, 'tok');
    const got: JSONRPCMessage[] = [];
    forwarder.onmessage = (m) => got.push(m);
    await forwarder.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'execute_code', arguments: { code: 'import time; time.sleep(60)' } } });
    await pollUntil(() => (got.length > 0 ? true : undefined), 5_000, 'an answer for the cut request');
    expect(got).toEqual([{ jsonrpc: '2.0', id: 9, error: { code: -32603, message: expect.stringMatching(/closed the connection before answering/) as unknown } }]);
    await forwarder.terminate();
  });

  it('a 404 for a known session ends the bridge (the instance forgot it), and the request is refused with why', async () => {
    let first = true;
    const fake = await instance((req, res) => {
      if (req.method !== 'POST') return res.writeHead(405).end();
      if (first) {
        first = false;
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-3' }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
        return;
      }
      res.writeHead(404).end('unknown session');
    });
    server = fake.server;
    const forwarder = new McpHttpForwarder(fake.url, 'tok');
    let closed = false;
    forwarder.onclose = () => (closed = true);
    await forwarder.send(INITIALIZE);
    await expect(forwarder.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).rejects.toThrow(/no longer knows this MCP session/);
    expect(closed).toBe(true);
    await forwarder.terminate();
  });

  it('passes on which assistant started it and the approval policy its configuration asks for (from its environment)', async () => {
    const fake = await instance((req, res) => {
      if (req.method !== 'POST') return res.writeHead(405).end();
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-3' }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
    });
    server = fake.server;
    process.env.SANDPIT_ASSISTANT = 'cursor';
    process.env.SANDPIT_APPROVAL = 'ask-every';
    try {
      const forwarder = new McpHttpForwarder(fake.url, 'tok');
      await forwarder.send(INITIALIZE);
      await forwarder.terminate();
    } finally {
      delete process.env.SANDPIT_ASSISTANT;
      delete process.env.SANDPIT_APPROVAL;
    }
    expect(fake.seen[0]?.headers).toMatchObject({ 'x-sandpit-assistant': 'cursor', 'x-sandpit-approval': 'ask-every', 'x-sandpit-bridge': 'stdio' });
    // Without them nothing is sent.
    const plain = new McpHttpForwarder(fake.url, 'tok');
    await plain.send(INITIALIZE);
    await plain.terminate();
    expect(fake.seen.at(-1)?.headers['x-sandpit-assistant']).toBeUndefined();
    expect(fake.seen.filter((r) => r.method === 'POST').at(-1)?.headers['x-sandpit-approval']).toBeUndefined();
  });
});
