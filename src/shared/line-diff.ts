/** One line of a diff: kept (in both), removed (only in the first text) or added (only in the second). */
export interface DiffLine {
  op: 'same' | 'removed' | 'added';
  text: string;
}

/** Past this many lines on each side (after the common start and end are set aside) the middle is not aligned. */
const MAX_ALIGNED_LINES = 2_000;

/** The lines of a text; a final newline does not make an empty last line ("a\n" is one line, "" none). */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * A line diff of `before` → `after` (longest common subsequence): every line of both texts appears once, in
 * order, as same / removed / added. The common beginning and end are set aside first; a middle longer than
 * MAX_ALIGNED_LINES on either side is shown as all removed, then all added (still complete, just not aligned).
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const same = (text: string): DiffLine => ({ op: 'same', text });
  const head = a.slice(0, start).map(same);
  const tail = a.slice(endA).map(same);
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  return [...head, ...alignMiddle(midA, midB), ...tail];
}

function alignMiddle(a: string[], b: string[]): DiffLine[] {
  const removed = (text: string): DiffLine => ({ op: 'removed', text });
  const added = (text: string): DiffLine => ({ op: 'added', text });
  if (a.length === 0 || b.length === 0 || a.length > MAX_ALIGNED_LINES || b.length > MAX_ALIGNED_LINES) {
    return [...a.map(removed), ...b.map(added)];
  }
  // lengths[i][j] = length of the LCS of a[i..] and b[j..], one row per line of a.
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lengths[i * width + j] =
        a[i] === b[j] ? lengths[(i + 1) * width + j + 1]! + 1 : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: 'same', text: a[i]! });
      i += 1;
      j += 1;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) {
      out.push(removed(a[i]!));
      i += 1;
    } else {
      out.push(added(b[j]!));
      j += 1;
    }
  }
  return [...out, ...a.slice(i).map(removed), ...b.slice(j).map(added)];
}

/** The diff as unified-diff style text: "  " kept, "- " removed, "+ " added, one line each. */
export function diffText(lines: readonly DiffLine[]): string {
  return lines.map((l) => `${l.op === 'same' ? ' ' : l.op === 'removed' ? '-' : '+'} ${l.text}`).join('\n');
}
