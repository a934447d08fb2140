import { describe, expect, it } from 'vitest';
import { SseParser } from './sse-parser';

describe('SseParser', () => {
  it('gives the data of each event, however the stream is cut', () => {
    const stream = 'event: message\nid: 1\ndata: {"a":1}\n\n: a comment\n\ndata: {"b":\ndata: 2}\r\n\r\ndata:{"c":3}\r\n\r\n';
    for (const size of [1, 2, 3, 7, stream.length]) {
      const parser = new SseParser();
      const events: string[] = [];
      for (let i = 0; i < stream.length; i += size) events.push(...parser.push(stream.slice(i, i + size)));
      expect(events).toEqual(['{"a":1}', '{"b":\n2}', '{"c":3}']);
    }
  });

  it('holds an event until its blank line arrives', () => {
    const parser = new SseParser();
    expect(parser.push('data: x\n')).toEqual([]);
    expect(parser.push('\n')).toEqual(['x']);
  });
});
