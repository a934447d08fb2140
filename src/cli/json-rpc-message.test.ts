import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { parseJsonRpcMessage } from './json-rpc-message';

/** Lines a client could send: each is judged as the SDK's own schema judges it. */
const CASES: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
  { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } },
  { jsonrpc: '2.0', id: 7, result: {} },
  { jsonrpc: '2.0', id: 7, result: { content: [] } },
  { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'no' } },
  { jsonrpc: '2.0', error: { code: -32700, message: 'parse' } },
  { jsonrpc: '2.0', id: 7, error: { code: -1, message: 'x', data: { any: 1 } } },
  // Not messages:
  { jsonrpc: '1.0', id: 1, method: 'x' },
  { id: 1, method: 'x' },
  { jsonrpc: '2.0', id: 1.5, method: 'x' },
  { jsonrpc: '2.0', id: null, method: 'x' },
  { jsonrpc: '2.0', id: {}, method: 'x' },
  { jsonrpc: '2.0', id: 1, method: 3 },
  { jsonrpc: '2.0', id: 1, method: 'x', params: [1, 2] },
  { jsonrpc: '2.0', id: 1, method: 'x', params: null },
  { jsonrpc: '2.0', id: 1, method: 'x', extra: true },
  { jsonrpc: '2.0', method: 'x', result: {} },
  { jsonrpc: '2.0', id: 1, result: 'text' },
  { jsonrpc: '2.0', id: 1, result: null },
  { jsonrpc: '2.0', result: {} },
  { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } },
  { jsonrpc: '2.0', id: 1, error: { code: 1 } },
  { jsonrpc: '2.0', id: 1, error: 'bad' },
  { jsonrpc: '2.0', id: 1 },
  { jsonrpc: '2.0' },
  [{ jsonrpc: '2.0', method: 'x' }],
  'text',
  null,
  42,
];

describe('parseJsonRpcMessage', () => {
  it.each(CASES.map((value) => [JSON.stringify(value), value]))('judges %s as the SDK schema does', (_text, value) => {
    expect(parseJsonRpcMessage(value) !== undefined).toBe(JSONRPCMessageSchema.safeParse(value).success);
  });

  it('accepts every valid message at all (not only refusing)', () => {
    expect(CASES.filter((value) => parseJsonRpcMessage(value) !== undefined)).toHaveLength(9);
  });
});
