import { useLayoutEffect, useRef, useState } from 'react';
import type { ReactElement, ReactNode } from 'react';
import { visibleRange } from './visible-range';

interface VirtualListProps<T> {
  items: readonly T[];
  rowHeight: number;
  /** Expected height of the scrolling box in pixels until it is measured (CSS sets the real one). */
  height: number;
  renderRow: (item: T, index: number) => ReactNode;
  getKey: (item: T, index: number) => string;
  testId: string;
  label: string;
  /** Rows rendered above and below the visible ones. */
  overscan?: number;
  /** Called when the last rows come into view (to load more). */
  onEndReached?: () => void;
}

/** A list that renders only the rows in view: every row has the same height. */
export function VirtualList<T>({
  items,
  rowHeight,
  height,
  renderRow,
  getKey,
  testId,
  label,
  overscan = 6,
  onEndReached,
}: VirtualListProps<T>): ReactElement {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(height);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return undefined;
    const measure = (): void => setViewport(box.clientHeight || height);
    measure();
    const observer = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(measure);
    observer?.observe(box);
    return () => observer?.disconnect();
  }, [height]);
  const { start, end } = visibleRange(scrollTop, viewport, rowHeight, items.length, overscan);
  const rows: ReactNode[] = [];
  for (let i = start; i < end; i++) {
    const item = items[i]!;
    rows.push(
      <div
        key={getKey(item, i)}
        role="row"
        className="vrow"
        style={{ top: i * rowHeight, height: rowHeight }}
        aria-rowindex={i + 2}
      >
        {renderRow(item, i)}
      </div>,
    );
  }
  return (
    <div
      ref={ref}
      className="vlist"
      style={{ maxHeight: Math.max(items.length * rowHeight, rowHeight * 3) + 2 }}
      data-testid={testId}
      role="rowgroup"
      aria-label={label}
      tabIndex={0}
      onScroll={(event) => {
        const box = event.currentTarget;
        setScrollTop(box.scrollTop);
        if (onEndReached && box.scrollTop + box.clientHeight >= box.scrollHeight - rowHeight * 3) onEndReached();
      }}
    >
      <div style={{ height: items.length * rowHeight, position: 'relative' }}>{rows}</div>
    </div>
  );
}
