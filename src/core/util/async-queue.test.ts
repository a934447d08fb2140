import { describe, expect, it } from 'vitest';
import { AsyncQueue } from './async-queue';

async function readAll<T>(queue: AsyncQueue<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const item of queue) seen.push(item);
  return seen;
}

describe('AsyncQueue', () => {
  it('gives the items in the order pushed, before and after the reader waits, and ends at end()', async () => {
    const queue = new AsyncQueue<number>();
    queue.push(1);
    const reading = readAll(queue);
    await new Promise((resolve) => setImmediate(resolve));
    queue.push(2);
    queue.push(3);
    queue.end();
    queue.push(4);
    expect(await reading).toEqual([1, 2, 3]);
  });

  it("throws the producer's failure from the reader's loop, also while it waits", async () => {
    const queue = new AsyncQueue<string>();
    queue.push('a');
    const seen: string[] = [];
    const reading = (async (): Promise<void> => {
      for await (const item of queue) seen.push(item);
    })();
    await new Promise((resolve) => setImmediate(resolve));
    queue.fail(new Error('the snapshot failed'));
    await expect(reading).rejects.toThrow('the snapshot failed');
    expect(seen).toEqual(['a']);
  });
});
