import { describe, expect, it } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import { fromWorkspacePath, normalizeRelativePath, workspacePath } from './safe-path';

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(isSandpitError(error, 'INVALID_INPUT')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('normalizeRelativePath', () => {
  it.each([
    ['a.txt', 'a.txt'],
    ['a/b/c.py', 'a/b/c.py'],
    ['./a', 'a'],
    ['a//b///c', 'a/b/c'],
    ['a/./b/.', 'a/b'],
    ['a/b/', 'a/b'],
    ['.hidden/..x/x..', '.hidden/..x/x..'],
    ['données/日本.txt', 'données/日本.txt'],
    ['C', 'C'],
    ['~/x', '~/x'],
  ])('accepts %j as %j', (input, expected) => {
    expect(normalizeRelativePath(input)).toBe(expected);
  });

  it.each([
    ['', 'empty'],
    ['.', 'workspace itself'],
    ['./', 'workspace itself'],
    ['//', 'absolute'],
    ['/etc/passwd', 'absolute'],
    ['a\0b', 'NUL'],
    ['a\nb', 'control character'],
    ['a\u001bb', 'control character'],
    ['a\u007fb', 'control character'],
    ['a\u0085b', 'control character'],
    ['..', '".."'],
    ['../evil', '".."'],
    ['a/../../b', '".."'],
    ['a/..', '".."'],
    ['a\\b', 'backslash'],
    ['..\\evil', 'backslash'],
    ['C:\\Windows', 'backslash'],
    ['C:/Windows', 'drive'],
    ['c:x', 'drive'],
  ])('refuses %j (%s)', (input, why) => {
    const message = refusal(() => normalizeRelativePath(input));
    expect(message).toContain(why);
    expect(message).toContain(JSON.stringify(input));
  });

  it('caps the path at 4096 bytes and a segment at 255 bytes', () => {
    const segment = 'x'.repeat(255);
    const long = Array.from({ length: 16 }, () => segment).join('/'); // 16*256-1 = 4095 bytes
    expect(normalizeRelativePath(long)).toBe(long);
    expect(refusal(() => normalizeRelativePath(`${long}/y`))).toContain('4096');
    expect(refusal(() => normalizeRelativePath('y'.repeat(256)))).toContain('255');
    // bytes, not characters: 128 two-byte characters are 256 bytes
    expect(refusal(() => normalizeRelativePath('é'.repeat(128)))).toContain('255');
  });

  it('accepts the root only when asked', () => {
    expect(normalizeRelativePath('', { allowRoot: true })).toBe('');
    expect(normalizeRelativePath('./', { allowRoot: true })).toBe('');
    expect(() => normalizeRelativePath('../', { allowRoot: true })).toThrow(/"\.\."/);
  });

  it('keeps messages short for huge inputs', () => {
    const message = refusal(() => normalizeRelativePath(`/${'a'.repeat(10_000)}`));
    expect(message.length).toBeLessThan(400);
  });
});

describe('workspacePath and fromWorkspacePath', () => {
  it('maps both ways', () => {
    expect(workspacePath('a//b')).toBe('/workspace/a/b');
    expect(workspacePath('', { allowRoot: true })).toBe('/workspace');
    expect(fromWorkspacePath('/workspace/a/b')).toBe('a/b');
    expect(fromWorkspacePath('a/b')).toBe('a/b');
    expect(fromWorkspacePath('/workspace//etc/x')).toBe('etc/x');
    expect(fromWorkspacePath('/workspace', { allowRoot: true })).toBe('');
    expect(fromWorkspacePath('/workspace/', { allowRoot: true })).toBe('');
    expect(fromWorkspacePath(workspacePath('x/y.txt'))).toBe('x/y.txt');
  });

  it('refuses escapes and other absolute paths', () => {
    expect(refusal(() => fromWorkspacePath('/workspace/../etc/passwd'))).toContain('/workspace/../etc/passwd');
    expect(refusal(() => fromWorkspacePath('/workspacex/a'))).toContain('absolute');
    expect(refusal(() => fromWorkspacePath('/etc/passwd'))).toContain('absolute');
    expect(refusal(() => fromWorkspacePath('/workspace'))).toContain('workspace itself');
    expect(refusal(() => workspacePath('../x'))).toContain('".."');
  });
});
