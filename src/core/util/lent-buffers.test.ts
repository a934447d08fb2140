import { describe, expect, it } from 'vitest';
import { doneWith, lend } from './lent-buffers';

describe('lent-buffers', () => {
  it('gives a lent buffer back once, when its writer is done with it', () => {
    const given: Buffer[] = [];
    const whole = Buffer.alloc(16);
    const lentPart = lend(whole.subarray(0, 8), () => given.push(whole));
    expect(given).toHaveLength(0);
    doneWith(lentPart);
    expect(given.length === 1 && given[0] === whole).toBe(true);
    doneWith(lentPart);
    expect(given).toHaveLength(1);
  });

  it('does nothing for a buffer that was not lent (another view of a lent one included)', () => {
    let given = 0;
    const whole = Buffer.alloc(16);
    lend(whole.subarray(0, 8), () => (given += 1));
    doneWith(whole);
    doneWith(whole.subarray(0, 8));
    doneWith(Buffer.from('x'));
    expect(given).toBe(0);
  });
});
