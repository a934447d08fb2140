// The JavaScript agent's descriptor reserve (fd-reserve.js): what `retryWithFds` frees, and when.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

interface FdReserve {
  withFds<T>(fn: () => T, need?: number): T;
  retryWithFds<T>(fn: () => T, need?: number): T;
  size(): number;
}

const agentRequire = createRequire(join(__dirname, 'fd-reserve.js'));
const { createFdReserve } = agentRequire('./fd-reserve.js') as { createFdReserve: (count: number) => FdReserve };

function emfile(): NodeJS.ErrnoException {
  return Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
}

describe('fd-reserve retryWithFds', () => {
  it('runs fn once and frees nothing when descriptors are left', () => {
    const reserve = createFdReserve(8);
    const sizes: number[] = [];
    expect(reserve.retryWithFds(() => (sizes.push(reserve.size()), 'scanned'), 4)).toBe('scanned');
    expect(sizes).toEqual([8]);
    expect(reserve.size()).toBe(8);
  });

  it('runs fn again with `need` descriptors freed once it failed for want of one, and holds them again after', () => {
    const reserve = createFdReserve(8);
    const sizes: number[] = [];
    const result = reserve.retryWithFds(() => {
      sizes.push(reserve.size());
      if (sizes.length === 1) throw emfile();
      return 'scanned';
    }, 4);
    expect(result).toBe('scanned');
    expect(sizes).toEqual([8, 4]);
    expect(reserve.size()).toBe(8);
  });

  it('lets any other error out at once, and a second shortage too', () => {
    const reserve = createFdReserve(8);
    let calls = 0;
    expect(() =>
      reserve.retryWithFds(() => {
        calls += 1;
        throw Object.assign(new Error('no such folder'), { code: 'ENOENT' });
      }, 4),
    ).toThrow('no such folder');
    expect(calls).toBe(1);
    calls = 0;
    expect(() =>
      reserve.retryWithFds(() => {
        calls += 1;
        throw emfile();
      }, 4),
    ).toThrow('EMFILE');
    expect(calls).toBe(2);
    expect(reserve.size()).toBe(8);
  });
});
