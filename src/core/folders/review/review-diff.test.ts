import { describe, expect, it } from 'vitest';
import { sideBySide, splitLines, unifiedDiff } from './review-diff';

describe('review diffs', () => {
  it('pairs a removed run with an added run as changed lines, keeps the same ones, numbers both sides', () => {
    expect(sideBySide('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual([
      { kind: 'same', left: 'a', right: 'a', leftLine: 1, rightLine: 1 },
      { kind: 'changed', left: 'b', right: 'B', leftLine: 2, rightLine: 2 },
      { kind: 'same', left: 'c', right: 'c', leftLine: 3, rightLine: 3 },
      { kind: 'added', right: 'd', rightLine: 4 },
    ]);
    expect(sideBySide('only\n', '')).toEqual([{ kind: 'removed', left: 'only', leftLine: 1 }]);
  });

  it('counts a last line without a newline as a line', () => {
    expect(splitLines('x\ny')).toEqual(['x', 'y']);
    expect(splitLines('')).toEqual([]);
  });

  it('writes a unified diff with context and cuts it at the bound, saying how much is left', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const after = before.replace('line 10\n', 'line ten\n');
    expect(unifiedDiff('f.txt', before, after, 100)).toEqual({
      text: ['--- a/f.txt', '+++ b/f.txt', '@@ -8,7 +8,7 @@', ' line 7', ' line 8', ' line 9', '-line 10', '+line ten', ' line 11', ' line 12', ' line 13'].join('\n'),
      truncated: false,
    });
    const cut = unifiedDiff('f.txt', before, '', 5);
    expect(cut.truncated).toBe(true);
    expect(cut.text.split('\n')).toHaveLength(6);
    expect(cut.text.split('\n')[5]).toBe('… (18 more lines)');
  });
});
