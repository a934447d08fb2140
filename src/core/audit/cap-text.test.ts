import { describe, expect, it } from 'vitest';
import { capText } from './cap-text';

describe('capText', () => {
  it('keeps text that fits', () => {
    expect(capText('hello', 5)).toEqual({ text: 'hello', truncated: false });
  });

  it('cuts on a character boundary and says how much was kept', () => {
    const { text, truncated } = capText('aé🦀b', 4);
    expect(truncated).toBe(true);
    expect(text).toBe('aé\n[… audit log: output truncated, kept 3 of 8 bytes]');
  });
});
