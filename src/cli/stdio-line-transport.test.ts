import { PassThrough, Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pollUntil, withTimeout } from '../core/util/with-timeout';
import { INVALID_REQUEST, PARSE_ERROR, StdioLineTransport } from './stdio-line-transport';

interface Answer {
  id?: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** A real McpServer on the transport over in-memory pipes, and the lines it writes. */
async function serve(maxMessageBytes: number): Promise<{
  stdin: PassThrough;
  transport: StdioLineTransport;
  server: McpServer;
  answers: Answer[];
  answer(id: string | number | null, from?: number): Promise<Answer>;
}> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const answers: Answer[] = [];
  let pending = '';
  stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) answers.push(JSON.parse(line) as Answer);
  });
  const server = new McpServer({ name: 'line-test', version: '0' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  const transport = new StdioLineTransport(stdin, stdout, { maxMessageBytes });
  await server.connect(transport);
  const answer = (id: string | number | null, from = 0): Promise<Answer> =>
    pollUntil(() => answers.slice(from).find((a) => a.id === id), 5_000, `the answer to ${String(id)}`);
  return { stdin, transport, server, answers, answer };
}

const line = (message: Record<string, unknown>): string => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
const INIT = line({
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
});

describe('StdioLineTransport', () => {
  const servers: McpServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });

  it('answers an oversized request with Invalid Request and its id, then serves the next request in the same chunk', async () => {
    const s = await serve(4_096);
    servers.push(s.server);
    s.stdin.write(INIT);
    expect((await s.answer(0)).result?.serverInfo).toMatchObject({ name: 'line-test' });
    const big = `{"method":"tools/call","params":{"name":"echo","arguments":{"text":"${'é'.repeat(10_000)}"}},"jsonrpc":"2.0","id":"big"}`;
    for (let i = 0; i < big.length; i += 1_000) s.stdin.write(big.slice(i, i + 1_000));
    s.stdin.write(`\n${line({ id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'after' } } })}`);
    const refused = await s.answer('big');
    expect(refused.error?.code).toBe(INVALID_REQUEST);
    expect(refused.error?.message).toContain(`the message was ${Buffer.byteLength(big)} bytes`);
    expect(refused.error?.message).toContain('limit of 4096 bytes (4 KiB)');
    expect(refused.error?.message).toContain('write_file content at most 1,048,576 characters');
    expect((await s.answer(1)).result?.content).toEqual([{ type: 'text', text: 'after' }]);
  });

  it('answers lines that are not JSON or not JSON-RPC, with the id when one is there, and keeps going', async () => {
    const s = await serve(4_096);
    servers.push(s.server);
    s.stdin.write(INIT);
    await s.answer(0);
    s.stdin.write('not json\n[1,2]\n{"id":3,"method":"ping"}\n{"jsonrpc":"2.0","id":4,"method":7}\n"just a string"\n');
    s.stdin.write(line({ id: 5, method: 'ping' }));
    expect((await s.answer(5)).result).toEqual({});
    const errors = s.answers.filter((a) => a.error);
    expect(errors.map((a) => [a.id, a.error?.code])).toEqual([
      [null, PARSE_ERROR],
      [null, INVALID_REQUEST],
      [3, INVALID_REQUEST],
      [4, INVALID_REQUEST],
      [null, INVALID_REQUEST],
    ]);
  });

  it('resolves ended when stdin ends, also right after an oversized line, and closes cleanly', async () => {
    const s = await serve(1_024);
    servers.push(s.server);
    let closed = 0;
    s.transport.onclose = () => (closed += 1);
    s.stdin.write('x'.repeat(5_000));
    s.stdin.end();
    expect(await withTimeout(s.transport.ended, 5_000, 'ended')).toBe('stdin ended');
    await s.transport.close();
    await s.transport.close();
    expect(closed).toBe(1);
    await expect(s.transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(/closed/);
  });

  it('resolves ended when stdout fails, and a send the client never reads fails after the drain timeout', async () => {
    const stdin = new PassThrough();
    const stuck = new Writable({ highWaterMark: 16, write: () => undefined });
    const transport = new StdioLineTransport(stdin, stuck, { drainTimeoutMs: 50 });
    await transport.start();
    await transport.send({ jsonrpc: '2.0', method: 'first' }).catch(() => undefined);
    await expect(transport.send({ jsonrpc: '2.0', method: 'second' })).rejects.toThrow(/did not read stdout/);
    stuck.destroy(new Error('EPIPE'));
    expect(await withTimeout(transport.ended, 5_000, 'ended')).toBe('stdout failed: EPIPE');
    await transport.close();
  });
});
