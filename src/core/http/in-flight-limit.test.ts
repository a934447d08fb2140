import { describe, expect, it } from 'vitest';
import { InFlightLimit } from './in-flight-limit';

describe('InFlightLimit', () => {
  it('grants up to max per key, refuses the next, and frees a slot on release (once)', () => {
    const limit = new InFlightLimit(2);
    const a = limit.tryAcquire('a');
    const b = limit.tryAcquire('a');
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(limit.tryAcquire('a')).toBeUndefined();
    expect(limit.tryAcquire('other')).toBeDefined();
    a!();
    a!();
    expect(limit.inFlight('a')).toBe(1);
    expect(limit.tryAcquire('a')).toBeDefined();
    expect(limit.tryAcquire('a')).toBeUndefined();
  });
});
