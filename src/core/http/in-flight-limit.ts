/** Counts requests in flight per key (the caller's principal) and refuses the one over the limit. */
export class InFlightLimit {
  private readonly counts = new Map<string, number>();

  constructor(readonly max: number) {}

  /** A release function (idempotent) when a slot is free, else undefined. Never waits. */
  tryAcquire(key: string): (() => void) | undefined {
    const count = this.counts.get(key) ?? 0;
    if (count >= this.max) return undefined;
    this.counts.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left <= 0) this.counts.delete(key);
      else this.counts.set(key, left);
    };
  }

  inFlight(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}
