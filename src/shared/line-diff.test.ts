import { describe, expect, it } from 'vitest';
import { diffText, lineDiff, splitLines } from './line-diff';

describe('lineDiff', () => {
  it('keeps equal texts as all same', () => {
    expect(lineDiff('a\nb\n', 'a\nb\n')).toEqual([
      { op: 'same', text: 'a' },
      { op: 'same', text: 'b' },
    ]);
  });

  it('shows a changed line as removed then added, between the kept ones', () => {
    expect(diffText(lineDiff('start\nrandom 0.12\nend\n', 'start\nrandom 0.98\nend\n'))).toBe(
      '  start\n- random 0.12\n+ random 0.98\n  end',
    );
  });

  it('aligns insertions and deletions in the middle (longest common subsequence)', () => {
    const diff = lineDiff('a\nb\nc\nd\n', 'a\nx\nc\nd\ny\n');
    expect(diff).toEqual([
      { op: 'same', text: 'a' },
      { op: 'removed', text: 'b' },
      { op: 'added', text: 'x' },
      { op: 'same', text: 'c' },
      { op: 'same', text: 'd' },
      { op: 'added', text: 'y' },
    ]);
  });

  it('handles empty sides and a missing final newline', () => {
    expect(lineDiff('', 'one\n')).toEqual([{ op: 'added', text: 'one' }]);
    expect(lineDiff('one\n', '')).toEqual([{ op: 'removed', text: 'one' }]);
    expect(lineDiff('', '')).toEqual([]);
    expect(splitLines('a\nb')).toEqual(['a', 'b']);
    expect(splitLines('a\n\n')).toEqual(['a', '']);
  });

  it('keeps every line of both texts, in order, even past the alignment limit', () => {
    const before = Array.from({ length: 2_500 }, (_, i) => `b${i}`).join('\n');
    const after = Array.from({ length: 2_500 }, (_, i) => `a${i}`).join('\n');
    const diff = lineDiff(`same\n${before}\nend`, `same\n${after}\nend`);
    expect(diff[0]).toEqual({ op: 'same', text: 'same' });
    expect(diff.at(-1)).toEqual({ op: 'same', text: 'end' });
    expect(diff.filter((l) => l.op === 'removed').map((l) => l.text)).toEqual(splitLines(before));
    expect(diff.filter((l) => l.op === 'added').map((l) => l.text)).toEqual(splitLines(after));
  });
});
