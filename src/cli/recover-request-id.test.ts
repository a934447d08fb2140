import { describe, expect, it } from 'vitest';
import { recoverRequestId } from './recover-request-id';

const PAD = 'x'.repeat(5_000);

describe('recoverRequestId', () => {
  it('reads the id at the end, where the SDK client writes it', () => {
    const head = `{"method":"tools/call","params":{"name":"write_file","arguments":{"content":"${PAD.slice(0, 100)}`;
    expect(recoverRequestId(head, `${PAD.slice(0, 50)}"}},"jsonrpc":"2.0","id":42}`)).toBe(42);
    expect(recoverRequestId(head, `xx"}},"jsonrpc":"2.0","id":"req-7"}\r\n`)).toBe('req-7');
  });

  it('reads the id at the beginning, skipping the values before it', () => {
    expect(recoverRequestId(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"a":"${PAD}`, PAD)).toBe(3);
    expect(recoverRequestId(`{ "jsonrpc" : "2.0", "x": {"id": 1, "s": "\\"}"}, "id" : "a\\"b", "params`, PAD)).toBe(
      'a"b',
    );
  });

  it('never takes an id from inside params or a string, nor one cut off at the end of the head', () => {
    expect(recoverRequestId(`{"method":"x","params":{"id":5,"code":"${PAD}`, `${PAD}"}}`)).toBeNull();
    expect(recoverRequestId('{"method":"x","params":{"s":"', 'and then \\",\\"id\\":5}"}')).toBeNull();
    expect(recoverRequestId('{"method":"x","params":{"q":{"id":9}', '"z":{"id":9}}')).toBeNull();
    expect(recoverRequestId('{"jsonrpc":"2.0","id":12', 'gibberish')).toBeNull();
    expect(recoverRequestId(`{"jsonrpc":"2.0","id":1.5,"method":"m"`, '')).toBeNull();
  });

  it('gives null for responses (never answered) and for text that is not JSON at all', () => {
    expect(recoverRequestId(`{"jsonrpc":"2.0","result":{"content":"${PAD}`, `"jsonrpc":"2.0","id":4}`)).toBeNull();
    expect(recoverRequestId(`{"error":{"code":1},"id":4}`, '')).toBeNull();
    expect(recoverRequestId(PAD, PAD)).toBeNull();
    expect(recoverRequestId('', '')).toBeNull();
  });
});
