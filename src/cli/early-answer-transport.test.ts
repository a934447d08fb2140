import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { EarlyAnswerTransport } from './early-answer-transport';
import { earlyInitializeResult } from './early-initialize';
import { StdioLineTransport } from './stdio-line-transport';

function pipes(): { stdin: PassThrough; stdout: PassThrough; written: () => JSONRPCMessage[] } {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const written = (): JSONRPCMessage[] =>
    text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as JSONRPCMessage);
  return { stdin, stdout, written };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const line = (message: unknown): string => `${JSON.stringify(message)}\n`;
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };

describe('EarlyAnswerTransport', () => {
  it('answers initialize before the server is there, hands the server every message in order, and never answers twice', async () => {
    const { stdin, stdout, written } = pipes();
    const transport = new EarlyAnswerTransport(new StdioLineTransport(stdin, stdout), earlyInitializeResult);
    await transport.listen();
    stdin.write(line(initialize));
    stdin.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    stdin.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    await tick();
    expect(written()).toHaveLength(1);
    expect(written()[0]).toMatchObject({ id: 1, result: { serverInfo: { name: 'sandpit' } } });

    // The server connects late: it reads the three messages, in order, then the live stream.
    const seen: JSONRPCMessage[] = [];
    transport.onmessage = (message) => seen.push(message);
    await transport.start();
    stdin.write(line({ jsonrpc: '2.0', id: 3, method: 'ping' }));
    await tick();
    expect(seen.map((m) => ('method' in m ? m.method : '?'))).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'ping']);

    // Its own initialize result is dropped; its other replies go out.
    await transport.send({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'sandpit', version: '0' } } });
    await transport.send({ jsonrpc: '2.0', id: 2, result: { tools: [] } });
    await transport.send({ jsonrpc: '2.0', id: 3, result: {} });
    await tick();
    expect(written().map((m) => ('id' in m ? m.id : undefined))).toEqual([1, 2, 3]);
    await transport.close();
  });

  it('leaves a malformed initialize to the server, and reports a server that refuses one answered early', async () => {
    const { stdin, stdout, written } = pipes();
    const disagreements: JSONRPCMessage[] = [];
    const transport = new EarlyAnswerTransport(new StdioLineTransport(stdin, stdout), earlyInitializeResult, (_early, late) => disagreements.push(late));
    await transport.listen();
    stdin.write(line({ jsonrpc: '2.0', id: 'bad', method: 'initialize', params: { protocolVersion: '2025-06-18' } }));
    stdin.write(line({ ...initialize, id: 'good' }));
    await tick();
    expect(written().map((m) => ('id' in m ? m.id : undefined))).toEqual(['good']);
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 'bad', error: { code: -32602, message: 'Invalid params' } });
    await transport.send({ jsonrpc: '2.0', id: 'good', error: { code: -32603, message: 'refused' } });
    await tick();
    expect(written().map((m) => ('id' in m ? m.id : undefined))).toEqual(['good', 'bad']);
    expect(disagreements).toEqual([{ jsonrpc: '2.0', id: 'good', error: { code: -32603, message: 'refused' } }]);
    await transport.close();
  });

  it('answers a repeated request id once only', async () => {
    const { stdin, stdout, written } = pipes();
    const transport = new EarlyAnswerTransport(new StdioLineTransport(stdin, stdout), earlyInitializeResult);
    await transport.listen();
    stdin.write(line(initialize));
    stdin.write(line(initialize));
    await tick();
    expect(written()).toHaveLength(1);
    await transport.close();
  });
});
