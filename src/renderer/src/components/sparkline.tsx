import type { ReactElement } from 'react';

/** The points of a sparkline: `values` spread over `width`, scaled to `max` (at least the largest value). */
export function sparkPoints(values: readonly number[], max: number, width: number, height: number): string {
  if (values.length === 0) return '';
  const top = Math.max(max, ...values, Number.EPSILON);
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  return values
    .map((v, i) => {
      const x = values.length > 1 ? i * step : width;
      const y = height - (Math.max(0, v) / top) * (height - 2) - 1;
      return `${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
}

/** A small line graph (plain SVG): how a value moved over the last minutes. */
export function Sparkline({ values, max, label, testId }: { values: readonly number[]; max: number; label: string; testId?: string }): ReactElement {
  const width = 160;
  const height = 36;
  const points = sparkPoints(values, max, width, height);
  return (
    <svg className="sparkline" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={label} data-testid={testId} preserveAspectRatio="none">
      <line x1="0" y1={height - 1} x2={width} y2={height - 1} className="spark-base" />
      {points ? <polyline points={`0,${height} ${points} ${width},${height}`} className="spark-fill" /> : null}
      {points ? <polyline points={points} className="spark-line" /> : null}
    </svg>
  );
}
