import type { DiffRow } from '../../../shared/domain/folder-changes';

/** Lines compared pairwise past this (after the common start and end): shown as all removed, all added. */
const MAX_CELLS = 4_000_000;

type Op = { kind: 'same' | 'removed' | 'added'; left?: number; right?: number };

/** `text` as lines (a last line without a newline is still a line). */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The line-level edit script from `a` to `b`: longest common subsequence after the common start and end. */
function editScript(a: readonly string[], b: readonly string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: Op[] = [];
  for (let i = 0; i < start; i++) ops.push({ kind: 'same', left: i, right: i });
  const n = endA - start;
  const m = endB - start;
  if (n * m > MAX_CELLS) {
    for (let i = start; i < endA; i++) ops.push({ kind: 'removed', left: i });
    for (let j = start; j < endB; j++) ops.push({ kind: 'added', right: j });
  } else {
    const lcs = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * (m + 1) + j] =
          a[start + i] === b[start + j]
            ? lcs[(i + 1) * (m + 1) + j + 1]! + 1
            : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[start + i] === b[start + j]) {
        ops.push({ kind: 'same', left: start + i, right: start + j });
        i++;
        j++;
      } else if (i < n && (j === m || lcs[(i + 1) * (m + 1) + j]! >= lcs[i * (m + 1) + j + 1]!)) {
        // removed before added (as unified diffs show them)
        ops.push({ kind: 'removed', left: start + i });
        i++;
      } else {
        ops.push({ kind: 'added', right: start + j });
        j++;
      }
    }
  }
  for (let k = 0; k < a.length - endA; k++) ops.push({ kind: 'same', left: endA + k, right: endB + k });
  return ops;
}

/** Side-by-side rows: a run of removed lines next to a run of added ones pairs up as changed lines. */
export function sideBySide(before: string, after: string): DiffRow[] {
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = editScript(a, b);
  const rows: DiffRow[] = [];
  for (let k = 0; k < ops.length;) {
    const op = ops[k]!;
    if (op.kind === 'same') {
      rows.push({
        kind: 'same',
        left: a[op.left!]!,
        right: b[op.right!]!,
        leftLine: op.left! + 1,
        rightLine: op.right! + 1,
      });
      k++;
      continue;
    }
    const removed: number[] = [];
    const added: number[] = [];
    while (k < ops.length && ops[k]!.kind !== 'same') {
      const o = ops[k]!;
      if (o.kind === 'removed') removed.push(o.left!);
      else added.push(o.right!);
      k++;
    }
    for (let p = 0; p < Math.max(removed.length, added.length); p++) {
      const l = removed[p];
      const r = added[p];
      rows.push({
        kind: l !== undefined && r !== undefined ? 'changed' : l !== undefined ? 'removed' : 'added',
        ...(l !== undefined ? { left: a[l]!, leftLine: l + 1 } : {}),
        ...(r !== undefined ? { right: b[r]!, rightLine: r + 1 } : {}),
      });
    }
  }
  return rows;
}

/** A unified diff (3 lines of context), cut at `maxLines` lines. */
export function unifiedDiff(
  path: string,
  before: string,
  after: string,
  maxLines: number,
): { text: string; truncated: boolean } {
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = editScript(a, b);
  const out = [`--- a/${path}`, `+++ b/${path}`];
  const changed = ops.map((o) => o.kind !== 'same');
  const CONTEXT = 3;
  let k = 0;
  while (k < ops.length) {
    if (!changed[k]) {
      k++;
      continue;
    }
    let from = Math.max(0, k - CONTEXT);
    let to = k;
    // extend the hunk while changes are within 2×context of each other
    for (let e = k; e < ops.length; e++) {
      if (changed[e]) to = e;
      else if (e - to > CONTEXT * 2) break;
    }
    const end = Math.min(ops.length, to + CONTEXT + 1);
    const hunk = ops.slice(from, end);
    const leftStart = (hunk.find((o) => o.left !== undefined)?.left ?? 0) + 1;
    const rightStart = (hunk.find((o) => o.right !== undefined)?.right ?? 0) + 1;
    out.push(
      `@@ -${leftStart},${hunk.filter((o) => o.kind !== 'added').length} +${rightStart},${hunk.filter((o) => o.kind !== 'removed').length} @@`,
    );
    for (const o of hunk)
      out.push(o.kind === 'same' ? ` ${a[o.left!]}` : o.kind === 'removed' ? `-${a[o.left!]}` : `+${b[o.right!]}`);
    from = end;
    k = end;
  }
  const truncated = out.length > maxLines;
  return {
    text: (truncated ? [...out.slice(0, maxLines), `… (${out.length - maxLines} more lines)`] : out).join('\n'),
    truncated,
  };
}
