import { describe, expect, it } from 'vitest';
import { resolveEnvironment } from './environments';

describe('resolveEnvironment', () => {
  it('accepts nothing, "python" and "default" for now, and says what to do otherwise', () => {
    expect(resolveEnvironment(undefined, undefined)).toBe('python');
    expect(resolveEnvironment(undefined, 'javascript')).toBe('javascript');
    expect(resolveEnvironment('default', undefined)).toBe('python');
    expect(resolveEnvironment('python', 'python')).toBe('python');
    expect(() => resolveEnvironment('datascience', undefined)).toThrow(/Unknown environment "datascience"/);
    expect(() => resolveEnvironment('python', 'javascript')).toThrow(/not javascript/);
  });
});
