/** Waits that end early when Sandpit begins to quit (so a quiet moment never holds a quit up). */
export class QuietMoments {
  /** Quiet moments to end when Sandpit begins to quit. */
  private readonly waiters = new Set<() => void>();

  /** Waits `ms`, or less when endAll() is called meanwhile. */
  wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  /** Ends every wait now (Sandpit begins to quit). */
  endAll(): void {
    for (const end of [...this.waiters]) end();
  }
}
