import { describe, expect, it } from 'vitest';
import { SerialQueue } from './serial-queue';

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('SerialQueue', () => {
  it('runs tasks one at a time in arrival order', async () => {
    const q = new SerialQueue();
    const events: string[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const runs = gates.map((gate, n) =>
      q.run(async () => {
        events.push(`start ${n}`);
        await gate.promise;
        events.push(`end ${n}`);
        return n;
      }),
    );
    await Promise.resolve();
    expect(q.length).toBe(3);
    // Finish them in reverse: the order of the runs must not change.
    gates[2]?.resolve();
    gates[1]?.resolve();
    gates[0]?.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(events).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
    expect(q.length).toBe(0);
  });

  it('does not start a task before the previous one has finished', async () => {
    const q = new SerialQueue();
    const gate = deferred();
    let secondStarted = false;
    const first = q.run(() => gate.promise);
    const second = q.run(() => {
      secondStarted = true;
      return Promise.resolve('second');
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(secondStarted).toBe(false);
    gate.resolve();
    await first;
    expect(await second).toBe('second');
    expect(secondStarted).toBe(true);
  });

  it('rejects the failing task only, and runs the next one', async () => {
    const q = new SerialQueue();
    const failing = q.run(() => Promise.reject(new Error('boom')));
    const next = q.run(() => Promise.resolve('after'));
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('after');
    expect(q.length).toBe(0);
  });

  it('survives a task that throws synchronously', async () => {
    const q = new SerialQueue();
    const failing = q.run((): Promise<void> => {
      throw new Error('sync boom');
    });
    const next = q.run(() => Promise.resolve(2));
    await expect(failing).rejects.toThrow('sync boom');
    await expect(next).resolves.toBe(2);
  });

  it('keeps working after the queue drained', async () => {
    const q = new SerialQueue();
    await q.run(() => Promise.resolve(1));
    await expect(q.run(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(q.run(() => Promise.resolve(3))).resolves.toBe(3);
  });
});
