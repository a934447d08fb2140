import { describe, expect, it } from 'vitest';
import { SseParser, readSse } from './sse-parser';

describe('SseParser', () => {
  it('parses named events with JSON data, ids and comments', () => {
    const parser = new SseParser();
    const out = parser.push(': hello\nevent: session.removed\nid: 7\ndata: {"sessionId":"s1"}\n\n');
    expect(out).toEqual([{ event: 'session.removed', data: '{"sessionId":"s1"}', id: '7' }]);
    expect(parser.lastEventId).toBe('7');
  });

  it('gives the same events however the text is split, with \\n, \\r\\n or \\r line ends', () => {
    const text = '\uFEFFevent: a\r\ndata: 1\r\n\r\nevent: b\rdata: x\rdata: y\r\rdata:z\n\n';
    const whole = new SseParser().push(text);
    expect(whole).toEqual([
      { event: 'a', data: '1' },
      { event: 'b', data: 'x\ny' },
      { event: 'message', data: 'z' },
    ]);
    for (let size = 1; size <= 5; size++) {
      const parser = new SseParser();
      const out = [];
      for (let i = 0; i < text.length; i += size) out.push(...parser.push(text.slice(i, i + size)));
      expect(out, `chunks of ${size}`).toEqual(whole);
    }
  });

  it('drops events without data, keeps unfinished ones for later, and reads retry', () => {
    const parser = new SseParser();
    expect(parser.push('event: empty\n\nretry: 2500\nretry: soon\ndata: part')).toEqual([]);
    expect(parser.retryMs).toBe(2500);
    expect(parser.push('ial\n\n')).toEqual([{ event: 'message', data: 'partial' }]);
  });
});

describe('readSse', () => {
  it('decodes a byte stream, including characters split across chunks', async () => {
    const bytes = new TextEncoder().encode('event: execution.output\ndata: {"text":"héllo ✓"}\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 3) controller.enqueue(bytes.slice(i, i + 3));
        controller.close();
      },
    });
    const seen: unknown[] = [];
    await readSse(body, new SseParser(), (m) => seen.push(m));
    expect(seen).toEqual([{ event: 'execution.output', data: '{"text":"héllo ✓"}' }]);
  });
});
