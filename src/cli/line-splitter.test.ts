import { describe, expect, it } from 'vitest';
import { LineSplitter } from './line-splitter';
import type { SplitLine } from './line-splitter';

const texts = (lines: SplitLine[]): string[] => lines.map((l) => (l.kind === 'line' ? l.text : `<${l.bytes} bytes>`));

describe('LineSplitter', () => {
  it('splits lines across and within chunks, keeps UTF-8 characters cut between chunks, drops \\r and blank lines', () => {
    const splitter = new LineSplitter(1024);
    const bytes = Buffer.from('{"a":"é€😀"}\r\n\n  \n{"b":1}\n{"c"', 'utf8');
    const out: SplitLine[] = [];
    // One byte at a time: every multi-byte character is cut somewhere.
    for (const byte of bytes) out.push(...splitter.push(Buffer.from([byte])));
    expect(texts(out)).toEqual(['{"a":"é€😀"}', '{"b":1}']);
    expect(splitter.heldBytes).toBe(4);
    expect(texts(splitter.push(Buffer.from(':2}\n')))).toEqual(['{"c":2}']);
    expect(splitter.heldBytes).toBe(0);
  });

  it('takes a line of exactly the limit and refuses one byte more, reporting its size, head and tail', () => {
    const splitter = new LineSplitter(10, 3);
    expect(splitter.push(Buffer.from('0123456789\n'))).toEqual([{ kind: 'line', text: '0123456789' }]);
    expect(splitter.push(Buffer.from('0123456789A\nnext\n'))).toEqual([
      { kind: 'oversized', bytes: 11, head: '012', tail: '89A' },
      { kind: 'line', text: 'next' },
    ]);
  });

  it('streams a 40 MiB line through without ever holding more than the limit, then reads the next line whole', () => {
    const limit = 1024 * 1024;
    const splitter = new LineSplitter(limit, 64);
    const piece = Buffer.alloc(64 * 1024, 'g');
    let most = 0;
    const out: SplitLine[] = [];
    out.push(...splitter.push(Buffer.from('{"jsonrpc":"2.0","id":"first",')));
    for (let i = 0; i < 640; i += 1) {
      out.push(...splitter.push(piece));
      most = Math.max(most, splitter.heldBytes);
    }
    out.push(...splitter.push(Buffer.from('"id":5}\n{"jsonrpc":"2.0","id":6,"method":"ping"}\n')));
    expect(most).toBeLessThanOrEqual(limit);
    expect(out).toHaveLength(2);
    const [big, next] = out;
    expect(big).toMatchObject({ kind: 'oversized', bytes: 30 + 640 * 64 * 1024 + 7 });
    expect(big?.kind === 'oversized' && big.head.startsWith('{"jsonrpc":"2.0","id":"first",ggg')).toBe(true);
    expect(big?.kind === 'oversized' && big.tail.endsWith('ggg"id":5}')).toBe(true);
    expect(next).toEqual({ kind: 'line', text: '{"jsonrpc":"2.0","id":6,"method":"ping"}' });
    expect(splitter.heldBytes).toBe(0);
  });

  it('takes a whole oversized line in one chunk without keeping the chunk alive (head and tail are copies)', () => {
    const splitter = new LineSplitter(100, 8);
    const chunk = Buffer.from(`${'h'.repeat(8)}${'m'.repeat(1000)}${'t'.repeat(8)}`);
    expect(splitter.push(chunk)).toEqual([]);
    chunk.fill('x');
    expect(splitter.push(Buffer.from('\n'))).toEqual([
      { kind: 'oversized', bytes: 1016, head: 'hhhhhhhh', tail: 'tttttttt' },
    ]);
  });

  it('copies what it keeps of an unfinished line, and reset() drops it', () => {
    const splitter = new LineSplitter(100);
    const chunk = Buffer.from('{"a":');
    splitter.push(chunk);
    chunk.fill('x');
    expect(texts(splitter.push(Buffer.from('1}\n')))).toEqual(['{"a":1}']);
    splitter.push(Buffer.from('half a line'));
    splitter.reset();
    expect(splitter.heldBytes).toBe(0);
    expect(texts(splitter.push(Buffer.from('whole\n')))).toEqual(['whole']);
  });
});
