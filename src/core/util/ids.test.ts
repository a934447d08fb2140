import { describe, expect, it } from 'vitest';
import { newId } from './ids';

describe('newId', () => {
  it('gives `<prefix>-<hex>` of the asked size, never the same twice across many pool refills', () => {
    expect(newId('run', 8)).toMatch(/^run-[0-9a-f]{16}$/);
    expect(newId('ses')).toMatch(/^ses-[0-9a-f]{12}$/);
    expect(newId('big', 5000)).toMatch(/^big-[0-9a-f]{10000}$/);
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i += 1) seen.add(newId('x', 8));
    expect(seen.size).toBe(20_000);
  });
});
