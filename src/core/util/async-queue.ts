/**
 * Items handed from a producer to one consumer that reads them with `for await`, in the order they were pushed. The
 * queue never blocks the producer (it is meant for small descriptors, not bytes); the consumer waits for the next
 * item, the end, or the producer's failure (thrown from the loop).
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private ended = false;
  private failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;

  push(item: T): void {
    if (this.ended || this.failure) return;
    this.items.push(item);
    this.notify();
  }

  /** No more items: the consumer's loop ends once it has read those pushed. */
  end(): void {
    this.ended = true;
    this.notify();
  }

  /** The producer failed: the consumer's loop throws `error` (items not yet read are dropped). */
  fail(error: unknown): void {
    if (this.ended || this.failure) return;
    this.failure = { error };
    this.items.length = 0;
    this.notify();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      if (this.failure) throw this.failure.error;
      if (this.items.length > 0) {
        yield this.items.shift() as T;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
