import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, createLineSplitter, encodeHostMessage, parseAgentLine } from './protocol';
import type { HostMessage } from './protocol';

function splitter(maxLineBytes?: number): {
  push: (chunk: Buffer | string) => void;
  lines: string[];
  overflows: () => number;
} {
  const lines: string[] = [];
  let overflows = 0;
  const push = createLineSplitter(
    (line) => lines.push(line),
    () => {
      overflows += 1;
    },
    maxLineBytes,
  );
  return {
    push: (chunk) => push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk),
    lines,
    overflows: () => overflows,
  };
}

describe('createLineSplitter', () => {
  it('emits one line per newline in a single chunk', () => {
    const s = splitter();
    s.push('a\nbb\nccc\n');
    expect(s.lines).toEqual(['a', 'bb', 'ccc']);
  });

  it('joins a line split across several chunks', () => {
    const s = splitter();
    s.push('{"type":');
    s.push('"hel');
    expect(s.lines).toEqual([]);
    s.push('lo"}\n{"x"');
    expect(s.lines).toEqual(['{"type":"hello"}']);
    s.push(':1}\n');
    expect(s.lines).toEqual(['{"type":"hello"}', '{"x":1}']);
  });

  it('keeps an unterminated tail until its newline arrives', () => {
    const s = splitter();
    s.push('first\nsecond');
    expect(s.lines).toEqual(['first']);
    s.push('\n');
    expect(s.lines).toEqual(['first', 'second']);
  });

  it('skips empty lines', () => {
    const s = splitter();
    s.push('\n\na\n\n');
    s.push('\n');
    expect(s.lines).toEqual(['a']);
  });

  it('decodes a multi-byte UTF-8 character split across chunks', () => {
    const bytes = Buffer.from('héllo €𝄞 wörld\n', 'utf8');
    const s = splitter();
    // One byte per chunk splits every multi-byte character in the middle.
    for (let i = 0; i < bytes.length; i += 1) s.push(bytes.subarray(i, i + 1));
    expect(s.lines).toEqual(['héllo €𝄞 wörld']);
  });

  it('is not confused when the chunk it was given is reused afterwards', () => {
    const s = splitter();
    const chunk = Buffer.from('abc', 'utf8');
    s.push(chunk);
    chunk.fill(0x78); // the stream may hand out a pooled buffer again
    s.push('\n');
    expect(s.lines).toEqual(['abc']);
  });

  it('reports an over-long line once and ignores everything after it', () => {
    const s = splitter(8);
    s.push('ok\n');
    s.push('12345');
    s.push('6789');
    expect(s.overflows()).toBe(1);
    s.push('0\nnext\n');
    s.push('more\n');
    expect(s.overflows()).toBe(1);
    expect(s.lines).toEqual(['ok']);
  });

  it('accepts a line of exactly the limit', () => {
    const s = splitter(8);
    s.push('1234');
    s.push('5678\n');
    expect(s.lines).toEqual(['12345678']);
    expect(s.overflows()).toBe(0);
  });

  it('refuses an over-long line even when its newline arrives in the same chunk', () => {
    const s = splitter(8);
    s.push('1234');
    s.push('56789\nnext\n');
    expect(s.overflows()).toBe(1);
    expect(s.lines).toEqual([]);
  });

  it('refuses an over-long line that arrives whole in one chunk', () => {
    const s = splitter(8);
    s.push('123456789\n');
    expect(s.overflows()).toBe(1);
    expect(s.lines).toEqual([]);
  });

  it('defaults to a limit of 32 MiB', () => {
    expect(MAX_LINE_BYTES).toBe(32 * 1024 * 1024);
  });
});

describe('parseAgentLine', () => {
  it.each([
    { type: 'hello', id: 'h1', language: 'python', version: '3.12.1', pid: 7, protocol: 1 },
    { type: 'stream', id: 'e1', name: 'stdout', text: 'hi\n' },
    { type: 'stream', id: 'e1', name: 'stderr', text: '' },
    { type: 'display', id: 'e1', mime: 'image/png', data: 'iVBORw0KGgo=', encoding: 'base64' },
    { type: 'display', id: 'e1', mime: 'text/html', data: '<b>x</b>', encoding: 'utf8' },
    { type: 'result', id: 'e1', text: '2' },
    { type: 'error', id: 'e1', name: 'ZeroDivisionError', value: 'division by zero', traceback: 'Traceback …' },
    { type: 'done', id: 'e1', status: 'ok', durationMs: 12.5 },
    {
      type: 'done',
      id: 'e1',
      status: 'interrupted',
      durationMs: 3,
      dropped: { stdout: 10 },
      files: [{ path: 'out/plot.png', size: 1234 }],
      filesTruncated: false,
      straysKilled: 2,
      exitCode: 0,
    },
  ])('accepts a valid $type message', (message) => {
    expect(parseAgentLine(JSON.stringify(message))).toEqual(message);
  });

  it('drops unknown fields of a valid message', () => {
    expect(parseAgentLine('{"type":"result","id":"e1","text":"2","extra":true}')).toEqual({
      type: 'result',
      id: 'e1',
      text: '2',
    });
  });

  it.each([
    '',
    'not json',
    '{"type":"result"',
    '{"type":"result","id":"e1","text":"2"} trailing',
    'null',
    '42',
    '"result"',
    '[]',
  ])('returns undefined for the non-message %j', (line) => {
    expect(parseAgentLine(line)).toBeUndefined();
  });

  it.each([
    ['an unknown type', { type: 'surprise', id: 'e1' }],
    ['no type', { id: 'e1', text: '2' }],
    ['a missing id', { type: 'result', text: '2' }],
    ['a numeric text', { type: 'result', id: 'e1', text: 2 }],
    ['an unknown stream name', { type: 'stream', id: 'e1', name: 'stdin', text: 'x' }],
    ['an unknown display encoding', { type: 'display', id: 'e1', mime: 'image/png', data: 'x', encoding: 'hex' }],
    ['an over-long mime', { type: 'display', id: 'e1', mime: 'x'.repeat(201), data: 'x', encoding: 'utf8' }],
    ['a done status the agent may not send', { type: 'done', id: 'e1', status: 'oom', durationMs: 1 }],
    ['a done without duration', { type: 'done', id: 'e1', status: 'ok' }],
    ['a fractional exit code', { type: 'done', id: 'e1', status: 'ok', durationMs: 1, exitCode: 1.5 }],
    ['a string dropped count', { type: 'done', id: 'e1', status: 'ok', durationMs: 1, dropped: { stdout: '10' } }],
    ['a hello without pid', { type: 'hello', id: 'h1', language: 'python', version: '3', protocol: 1 }],
  ])('returns undefined for %s', (_what, message) => {
    expect(parseAgentLine(JSON.stringify(message))).toBeUndefined();
  });
});

describe('encodeHostMessage', () => {
  it.each<HostMessage>([
    { type: 'hello', id: 'h1' },
    { type: 'execute', id: 'e1', code: 'print("a\\nb")\nx = 1', outputLimit: 1024 },
    { type: 'interrupt', id: 'e1' },
  ])('encodes $type as exactly one JSON line', (message) => {
    const encoded = encodeHostMessage(message);
    expect(encoded.endsWith('\n')).toBe(true);
    expect(encoded.indexOf('\n')).toBe(encoded.length - 1);
    expect(JSON.parse(encoded)).toEqual(message);
  });

  it('round-trips through the line splitter even with newlines and non-ASCII in the code', () => {
    const message: HostMessage = { type: 'execute', id: 'e2', code: 'print("é€𝄞")\nprint(1)\n', outputLimit: 10 };
    const lines: string[] = [];
    const push = createLineSplitter(
      (line) => lines.push(line),
      () => undefined,
    );
    const bytes = Buffer.from(encodeHostMessage(message) + encodeHostMessage({ type: 'interrupt', id: 'e2' }), 'utf8');
    push(bytes.subarray(0, 20));
    push(bytes.subarray(20));
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([message, { type: 'interrupt', id: 'e2' }]);
  });
});
