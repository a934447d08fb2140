import { describe, expect, it, vi } from 'vitest';
import { RefillGate } from './refill-gate';

/** Whether `promise` has settled after the pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('RefillGate', () => {
  it('is clear when nothing holds it, and opens only once every hold is released (a release twice counts once)', async () => {
    const gate = new RefillGate();
    expect(await settled(gate.clear())).toBe(true);
    const first = gate.hold();
    const second = gate.hold();
    const waiting = gate.clear();
    first();
    first();
    expect(gate.held).toBe(true);
    expect(await settled(waiting)).toBe(false);
    second();
    expect(gate.held).toBe(false);
    expect(await settled(waiting)).toBe(true);
  });

  it('opens by itself after the longest hold, so bulk work that never ends cannot stop the pools for good', async () => {
    vi.useFakeTimers();
    try {
      const gate = new RefillGate();
      gate.hold(1_000);
      const waiting = gate.clear();
      let open = false;
      void waiting.then(() => (open = true));
      await vi.advanceTimersByTimeAsync(999);
      expect(open).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(open).toBe(true);
      expect(gate.held).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
