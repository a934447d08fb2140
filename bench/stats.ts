/** Small statistics and formatting helpers for the benchmarks (no dependencies). */

export interface Distribution {
  n: number;
  min: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

/** The nearest-rank percentile of ascending `sorted` (p in 0..100). With n < 100, p99 is the maximum. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** The median (mean of the two middle values when n is even). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

export function summarize(values: readonly number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: median(sorted),
    p99: percentile(sorted, 99),
    mean: mean(sorted),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Rounds for JSON output (keeps reports readable): 3 significant decimals below 10, fewer above. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  const abs = Math.abs(value);
  const digits = abs < 1 ? 4 : abs < 10 ? 3 : abs < 1000 ? 2 : 1;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function roundDistribution(d: Distribution): Distribution {
  return { n: d.n, min: round(d.min), p50: round(d.p50), p99: round(d.p99), mean: round(d.mean), max: round(d.max) };
}

/** Milliseconds with a precision that suits their size. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms < 1) return `${ms.toFixed(3)} ms`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(0)} ms`;
}

export function formatRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return '—';
  return ratio >= 100 ? `${ratio.toFixed(0)}×` : ratio >= 10 ? `${ratio.toFixed(1)}×` : `${ratio.toFixed(2)}×`;
}

export function formatMiB(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : '—';
}

/** A plain aligned text table: by default the first column left-aligned, the others right-aligned. */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>, align?: ReadonlyArray<'l' | 'r'>): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const left = (i: number): boolean => (align ? align[i] === 'l' : i === 0);
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (left(i) ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The standard row of a latency table: label, n, p50, p99, mean, min, max. */
export const LATENCY_HEADERS = ['', 'n', 'p50', 'p99', 'mean', 'min', 'max'] as const;

export function latencyRow(label: string, d: Distribution): string[] {
  return [label, String(d.n), formatMs(d.p50), formatMs(d.p99), formatMs(d.mean), formatMs(d.min), formatMs(d.max)];
}

/** One stated goal of the design and whether this run met it. */
export interface Goal {
  name: string;
  target: string;
  actual: string;
  met: boolean;
}

export function goal(name: string, target: string, actual: string, met: boolean): Goal {
  return { name, target, actual, met };
}

export function goalTable(goals: readonly Goal[]): string {
  return table(
    ['goal', 'target', 'measured', 'verdict'],
    goals.map((g) => [g.name, g.target, g.actual, g.met ? 'met' : 'MISSED']),
    ['l', 'r', 'r', 'l'],
  );
}
