import { afterEach, describe, expect, it, vi } from 'vitest';
import { SandpitError } from '../../shared/api/errors';
import { pollUntil, withTimeout } from './with-timeout';

afterEach(() => {
  vi.useRealTimers();
});

async function failure(promise: Promise<unknown>): Promise<SandpitError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SandpitError);
  return error as SandpitError;
}

describe('withTimeout', () => {
  it('resolves with the value of a promise that finishes in time, and leaves no timer', async () => {
    vi.useFakeTimers();
    await expect(withTimeout(Promise.resolve(42), 1_000, 'the answer')).resolves.toBe(42);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('passes the rejection of a promise that fails in time through unchanged', async () => {
    const boom = new Error('boom');
    await expect(withTimeout(Promise.reject(boom), 1_000, 'x')).rejects.toBe(boom);
  });

  it('rejects with INTERNAL naming what did not finish, after exactly ms', async () => {
    vi.useFakeTimers();
    const outcome = failure(withTimeout(new Promise(() => undefined), 3_000, 'starting the sandbox'));
    await vi.advanceTimersByTimeAsync(2_999);
    let settled = false;
    void outcome.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toBe('starting the sandbox did not finish within 3000 ms');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with the given code', async () => {
    vi.useFakeTimers();
    const outcome = failure(withTimeout(new Promise(() => undefined), 100, 'ping', 'DOCKER_UNAVAILABLE'));
    await vi.advanceTimersByTimeAsync(100);
    expect((await outcome).code).toBe('DOCKER_UNAVAILABLE');
  });
});

describe('pollUntil', () => {
  it('returns the first value that is not undefined', async () => {
    let calls = 0;
    const value = await pollUntil(() => (++calls >= 3 ? `after ${calls}` : undefined), 1_000, 'three calls', 1);
    expect(value).toBe('after 3');
  });

  it('accepts async checks and falsy values other than undefined', async () => {
    await expect(pollUntil(() => Promise.resolve(0), 1_000, 'zero')).resolves.toBe(0);
    await expect(pollUntil(() => false, 1_000, 'false')).resolves.toBe(false);
  });

  it('fails with INTERNAL naming what did not happen after the timeout', async () => {
    vi.useFakeTimers();
    let calls = 0;
    const outcome = failure(
      pollUntil(
        () => {
          calls += 1;
          return undefined;
        },
        500,
        'the container to stop',
        100,
      ),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    const error = await outcome;
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toBe('the container to stop did not happen within 500 ms');
    expect(calls).toBeGreaterThanOrEqual(5);
    expect(calls).toBeLessThanOrEqual(8);
  });
});
