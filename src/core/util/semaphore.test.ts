import { afterEach, describe, expect, it, vi } from 'vitest';
import { SandpitError } from '../../shared/api/errors';
import { Semaphore } from './semaphore';

afterEach(() => {
  vi.useRealTimers();
});

describe('Semaphore', () => {
  it('grants up to its capacity at once', async () => {
    const s = new Semaphore(2);
    await s.acquire(1_000, 'run');
    await s.acquire(1_000, 'run');
    expect(s.inUse).toBe(2);
    expect(s.waiting).toBe(0);
  });

  it('makes the next caller wait until a slot is released', async () => {
    const s = new Semaphore(1);
    const release = await s.acquire(1_000, 'run');
    let granted = false;
    const next = s.acquire(1_000, 'run').then((r) => {
      granted = true;
      return r;
    });
    await Promise.resolve();
    expect(granted).toBe(false);
    expect(s.waiting).toBe(1);
    release();
    await next;
    expect(granted).toBe(true);
    expect(s.inUse).toBe(1);
    expect(s.waiting).toBe(0);
  });

  it('grants waiters in arrival order', async () => {
    const s = new Semaphore(1);
    const first = await s.acquire(1_000, 'run');
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) =>
      s.acquire(1_000, 'run').then((release) => {
        order.push(n);
        release();
      }),
    );
    first();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
    expect(s.inUse).toBe(0);
  });

  it('ignores a second call of the same release', async () => {
    const s = new Semaphore(2);
    const a = await s.acquire(1_000, 'run');
    await s.acquire(1_000, 'run');
    a();
    a();
    expect(s.inUse).toBe(1);
  });

  it('fails a waiter with LIMIT_EXCEEDED after its timeout, and forgets it', async () => {
    vi.useFakeTimers();
    const s = new Semaphore(1);
    const release = await s.acquire(1_000, 'run');
    const waiting = s.acquire(5_000, 'execute in ses-1');
    const outcome = waiting.then(
      () => undefined,
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(4_999);
    expect(s.waiting).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(SandpitError);
    expect((error as SandpitError).code).toBe('LIMIT_EXCEEDED');
    expect((error as SandpitError).message).toContain('execute in ses-1');
    expect(s.waiting).toBe(0);
    // The timed-out waiter never gets the slot: releasing frees it for the next caller.
    release();
    expect(s.inUse).toBe(0);
    await s.acquire(1, 'run');
    expect(s.inUse).toBe(1);
  });

  it('does not time out a waiter that was granted in time', async () => {
    vi.useFakeTimers();
    const s = new Semaphore(1);
    const release = await s.acquire(1_000, 'run');
    const waiting = s.acquire(1_000, 'run');
    release();
    const second = await waiting;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(s.inUse).toBe(1);
    second();
    expect(s.inUse).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
