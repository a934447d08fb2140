/** Runs tasks one after another in arrival order (a per-session FIFO). A failed task does not block the next. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  get length(): number {
    return this.pending;
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    this.pending += 1;
    const next = this.tail.then(task, task).finally(() => {
      this.pending -= 1;
    });
    this.tail = next.catch(() => undefined);
    return next;
  }
}
