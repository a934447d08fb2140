/** The longest one hold keeps the gate shut (a copy that never ends must not stop the pools for good). */
const MAX_HOLD_MS = 120_000;

/**
 * Bulk work under way (a restore's or a fork's copy of a workspace into its new sandbox): the warm pools put off
 * starting the containers that replace the ones claimed until it ends. On 2 cores a container starting beside a
 * 100 MiB restore made the restore take 0.7–0.95 s instead of 0.44–0.56 s (bench/snapshots.ts).
 */
export class RefillGate {
  private holds = 0;
  private waiters: Array<() => void> = [];

  /** Shuts the gate until the returned release is called (once is enough; later calls do nothing), or `maxMs` passed. */
  hold(maxMs = MAX_HOLD_MS): () => void {
    this.holds += 1;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      clearTimeout(timer);
      this.holds -= 1;
      if (this.holds > 0) return;
      const waiters = this.waiters;
      this.waiters = [];
      for (const go of waiters) go();
    };
    const timer = setTimeout(release, maxMs);
    timer.unref();
    return release;
  }

  /** Resolves at once when nothing holds the gate, else when the last hold is released. */
  clear(): Promise<void> {
    if (this.holds === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Whether bulk work holds the gate now. */
  get held(): boolean {
    return this.holds > 0;
  }
}
