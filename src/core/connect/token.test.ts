import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../log';
import { silentLogger } from '../log';
import {
  generateToken,
  isLooserThanOwnerOnly,
  loadOrCreateToken,
  principalOf,
  rotateToken,
  tokenPath,
  tokensEqual,
} from './token';

const posix = process.platform !== 'win32';

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { ...silentLogger, warn: (message) => warnings.push(message), child: () => recordingLogger(), warnings };
}

describe('generateToken', () => {
  it('is 32 random bytes (256 bits) as base64url', () => {
    const token = generateToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
  });

  it('never repeats and every bit is a fair coin (no fixed bits: the full 256 bits are random)', () => {
    const tokens = Array.from({ length: 2_000 }, generateToken);
    expect(new Set(tokens).size).toBe(tokens.length);
    const ones = new Array<number>(256).fill(0);
    for (const token of tokens) {
      const bytes = Buffer.from(token, 'base64url');
      for (let bit = 0; bit < 256; bit++) ones[bit]! += (bytes[bit >> 3]! >> (bit & 7)) & 1;
    }
    // Binomial(2000, 0.5): mean 1000, sd ≈ 22; 7 sd either way never happens by chance.
    for (const count of ones) expect(Math.abs(count - 1_000)).toBeLessThan(160);
  });
});

describe('loadOrCreateToken', () => {
  let home: string;

  beforeEach(async () => {
    home = join(await mkdtemp(join(tmpdir(), 'sandpit-token-')), 'home');
  });

  afterEach(async () => {
    await rm(join(home, '..'), { recursive: true, force: true });
  });

  it('creates the data folder and a 0600 token file, and returns the token', async () => {
    const token = await loadOrCreateToken(home);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await readFile(tokenPath(home), 'utf8')).trim()).toBe(token);
    if (posix) expect((await stat(tokenPath(home))).mode & 0o777).toBe(0o600);
  });

  it('reuses the token on the next load', async () => {
    const first = await loadOrCreateToken(home);
    expect(await loadOrCreateToken(home)).toBe(first);
  });

  it('gives every concurrent loader the same token', async () => {
    const tokens = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateToken(home)));
    expect(new Set(tokens).size).toBe(1);
  });

  it.runIf(posix)('tightens a token file others can read to 0600, with a warning', async () => {
    const first = await loadOrCreateToken(home);
    await chmod(tokenPath(home), 0o644);
    const log = recordingLogger();
    expect(await loadOrCreateToken(home, log)).toBe(first);
    expect((await stat(tokenPath(home))).mode & 0o777).toBe(0o600);
    expect(log.warnings.join(' ')).toContain('readable by others');
  });

  it('replaces a file that holds no usable token, with a warning', async () => {
    await loadOrCreateToken(home);
    await writeFile(tokenPath(home), 'short\n', { mode: 0o600 });
    const log = recordingLogger();
    const token = await loadOrCreateToken(home, log);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(log.warnings).toHaveLength(1);
  });
});

describe('rotateToken', () => {
  it('replaces the token with a new 0600 one', async () => {
    const home = await mkdtemp(join(tmpdir(), 'sandpit-token-'));
    try {
      const first = await loadOrCreateToken(home);
      const second = await rotateToken(home);
      expect(second).not.toBe(first);
      expect(await loadOrCreateToken(home)).toBe(second);
      if (posix) expect((await stat(tokenPath(home))).mode & 0o777).toBe(0o600);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('tokensEqual', () => {
  it('is true only for the same token', () => {
    const token = generateToken();
    expect(tokensEqual(token, token)).toBe(true);
    expect(tokensEqual(token, `${token}x`)).toBe(false);
    expect(tokensEqual(token, token.slice(0, -1))).toBe(false);
    expect(tokensEqual(token, generateToken())).toBe(false);
    expect(tokensEqual('', token)).toBe(false);
    expect(tokensEqual('', '')).toBe(true);
  });
});

describe('principalOf', () => {
  it('is stable, distinct per token and does not contain the token', () => {
    const token = generateToken();
    expect(principalOf(token)).toBe(principalOf(token));
    expect(principalOf(token)).not.toBe(principalOf(generateToken()));
    expect(principalOf(token)).toMatch(/^token:[a-f0-9]{16}$/);
    expect(principalOf(token)).not.toContain(token.slice(0, 8));
  });
});

describe('isLooserThanOwnerOnly', () => {
  it('flags group or other bits on POSIX, never on Windows', () => {
    expect(isLooserThanOwnerOnly(0o100600, 'linux')).toBe(false);
    expect(isLooserThanOwnerOnly(0o100400, 'linux')).toBe(false);
    expect(isLooserThanOwnerOnly(0o100640, 'linux')).toBe(true);
    expect(isLooserThanOwnerOnly(0o100604, 'darwin')).toBe(true);
    expect(isLooserThanOwnerOnly(0o100666, 'win32')).toBe(false);
  });
});
