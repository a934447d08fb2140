/** Relative paths (forward slashes), sorted, for "is it there" and "what lies below it" without a scan each. */
export interface SortedPaths {
  has(rel: string): boolean;
  /** Any path strictly below `rel`. */
  hasUnder(rel: string): boolean;
  /** Every path strictly below `rel`. */
  under(rel: string): string[];
}

export function sortedPaths(paths: readonly string[]): SortedPaths {
  const sorted = [...paths].sort();
  const set = new Set(sorted);
  // the first index whose path is not before `key` (paths below `rel/` sit together from there)
  const lowerBound = (key: string): number => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const under = (rel: string): string[] => {
    const prefix = `${rel}/`;
    const out: string[] = [];
    for (let i = lowerBound(prefix); i < sorted.length && sorted[i]!.startsWith(prefix); i++) out.push(sorted[i]!);
    return out;
  };
  return {
    has: (rel) => set.has(rel),
    hasUnder: (rel) => {
      const prefix = `${rel}/`;
      const i = lowerBound(prefix);
      return i < sorted.length && sorted[i]!.startsWith(prefix);
    },
    under,
  };
}
