import { describe, expect, it } from 'vitest';
import { RunOutputBuffer } from './run-output-buffer';

describe('a background run\'s output, read from a cursor', () => {
  it('gives what follows the cursor, in print order, merging neighbours of one stream, at most maxChars', () => {
    const buffer = new RunOutputBuffer();
    buffer.append('stdout', 'one\n');
    buffer.append('stdout', 'two\n');
    buffer.append('stderr', 'warn\n');
    buffer.append('stdout', 'three\n');
    expect(buffer.slice(0, 1_000)).toEqual({
      output: [{ stream: 'stdout', text: 'one\ntwo\n' }, { stream: 'stderr', text: 'warn\n' }, { stream: 'stdout', text: 'three\n' }],
      cursor: 19,
      skippedChars: 0,
      more: false,
    });
    expect(buffer.slice(4, 6)).toEqual({ output: [{ stream: 'stdout', text: 'two\n' }, { stream: 'stderr', text: 'wa' }], cursor: 10, skippedChars: 0, more: true });
    expect(buffer.slice(10, 1_000).output).toEqual([{ stream: 'stderr', text: 'rn\n' }, { stream: 'stdout', text: 'three\n' }]);
    expect(buffer.slice(19, 1_000)).toEqual({ output: [], cursor: 19, skippedChars: 0, more: false });
    // A cursor past the end is the end.
    expect(buffer.slice(500, 10).cursor).toBe(19);
  });

  it('keeps only the newest output and says how much of what was asked for is gone', () => {
    const buffer = new RunOutputBuffer(10);
    for (const text of ['aaaa', 'bbbb', 'cccc', 'dddd']) buffer.append('stdout', text);
    expect(buffer.length).toBe(16);
    expect(buffer.slice(0, 100)).toEqual({ output: [{ stream: 'stdout', text: 'ccccdddd' }], cursor: 16, skippedChars: 8, more: false });
    expect(buffer.slice(10, 100)).toEqual({ output: [{ stream: 'stdout', text: 'ccdddd' }], cursor: 16, skippedChars: 0, more: false });
  });
});
