import * as crypto from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { basicCredentials, egressCredentials } from './egress-credentials';

// The store's secret comparison goes through node:crypto's timingSafeEqual; the spy shows it is the
// comparison used (on fixed-length digests, so the lengths of a guess leak nothing either).
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof crypto>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});
const timingSafeEqual = vi.mocked(crypto.timingSafeEqual);

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

beforeEach(() => {
  timingSafeEqual.mockClear();
});

describe('egressCredentials', () => {
  it('issues a 256-bit random secret per owner, the same one until it is revoked', () => {
    const store = egressCredentials();
    const a = store.issue('ses-a');
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(store.issue('ses-a')).toBe(a);
    const b = store.issue('ses-b');
    expect(b).not.toBe(a);
    expect(egressCredentials().issue('ses-a')).not.toBe(a);
    expect(store.count()).toBe(2);
  });

  it('verifies to the owner the secret was issued to, and to nobody for anything else', () => {
    const store = egressCredentials();
    const a = store.issue('ses-a');
    store.issue('ses-b');
    expect(store.verify(basic('ses-a', a))).toBe('ses-a');
    expect(store.verify(` basic  ${Buffer.from(`ses-a:${a}`).toString('base64')} `)).toBe('ses-a');
    for (const header of [
      undefined,
      '',
      basic('ses-b', a),
      basic('ses-a', a.slice(1)),
      basic('ses-a', `${a}=`),
      basic('session', 'ses-a'),
      basic('ses-nobody', a),
      basic('../ses-a', a),
      `Digest ${a}`,
      'Basic',
    ]) {
      expect(store.verify(header), String(header)).toBeUndefined();
    }
  });

  it('compares secrets in constant time, on digests of one fixed length, whether or not the owner exists', () => {
    const store = egressCredentials();
    const a = store.issue('ses-a');
    for (const [user, guess] of [
      ['ses-a', 'short'],
      ['ses-a', `${a}${a}`],
      ['ses-a', a],
      ['ses-unknown', a],
    ] as const) {
      timingSafeEqual.mockClear();
      store.verify(basic(user, guess));
      expect(timingSafeEqual, `${user}:${guess}`).toHaveBeenCalledTimes(1);
      const [left, right] = timingSafeEqual.mock.calls[0]! as unknown as [Buffer, Buffer];
      expect([left.length, right.length]).toEqual([32, 32]);
    }
  });

  it('revokes: the old secret is dead for good, a new issue is a new secret', () => {
    const store = egressCredentials();
    const old = store.issue('ses-a');
    expect(store.revoke('ses-a')).toBe(true);
    expect(store.revoke('ses-a')).toBe(false);
    expect(store.verify(basic('ses-a', old))).toBeUndefined();
    const fresh = store.issue('ses-a');
    expect(fresh).not.toBe(old);
    expect(store.verify(basic('ses-a', old))).toBeUndefined();
    expect(store.verify(basic('ses-a', fresh))).toBe('ses-a');
    store.clear();
    expect(store.verify(basic('ses-a', fresh))).toBeUndefined();
    expect(store.count()).toBe(0);
  });

  it('refuses owners that could not be a proxy URL user name', () => {
    const store = egressCredentials();
    for (const owner of ['', 'a:b', 'a@b', 'a/b', 'x'.repeat(65), 'sés']) {
      expect(() => store.issue(owner), owner).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
    }
    expect(store.count()).toBe(0);
  });
});

describe('basicCredentials', () => {
  it('splits at the first colon only (secrets may not contain one, passwords may)', () => {
    expect(basicCredentials(basic('u', 'p:q'))).toEqual({ user: 'u', password: 'p:q' });
    expect(basicCredentials(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeUndefined();
    expect(basicCredentials(`Basic ${'A'.repeat(600)}`)).toBeUndefined();
  });
});
