import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, link, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SandpitError } from '../../shared/api/errors';
import type { Logger } from '../log';

/** 32 random bytes: 256 bits, 43 base64url characters. */
export const TOKEN_BYTES = 32;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43,512}$/;

/** The two secrets of a data folder: the clients' bearer token and the web panel's own. */
export type TokenFile = 'token' | 'panel-token';

/** Where a token of a data folder lives. */
export function tokenPath(home: string, file: TokenFile = 'token'): string {
  return join(home, file);
}

/** A fresh token: 256 random bits, base64url. */
export function generateToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** Whether a token file's mode lets anyone but its owner read or write it (never on Windows, which has no such bits). */
export function isLooserThanOwnerOnly(mode: number, platform: NodeJS.Platform = process.platform): boolean {
  return platform !== 'win32' && (mode & 0o077) !== 0;
}

/**
 * Reads `$SANDPIT_HOME/token` (or `panel-token`), creating it (exclusively, mode 0600, never half-written) when absent. A file that others may
 * read is tightened to 0600 with a warning; a file that holds no usable token (empty, too short) is
 * replaced with a fresh one, also with a warning.
 */
export async function loadOrCreateToken(home: string, log?: Logger, file: TokenFile = 'token'): Promise<string> {
  const path = tokenPath(home, file);
  await mkdir(home, { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await readExisting(home, log, file);
    if (existing !== undefined) return existing;
    const token = generateToken();
    // Written whole to a private temp file, then linked into place: the link fails if another process
    // got there first, and nobody ever reads a half-written token.
    const temp = tempPathFor(path);
    try {
      await writeExclusive(temp, token);
      await link(temp, path);
      log?.info(file === 'token' ? 'created the access token' : 'created the panel token', { path });
      return token;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await rm(temp, { force: true });
    }
  }
  throw new SandpitError('CONFLICT', `Could not read or create the access token at ${path}.`);
}

/** Replaces the token with a fresh one (atomically: write a 0600 temp file, then rename over). */
export async function rotateToken(home: string, file: TokenFile = 'token'): Promise<string> {
  const path = tokenPath(home, file);
  await mkdir(home, { recursive: true, mode: 0o700 });
  const token = generateToken();
  const temp = tempPathFor(path);
  try {
    await writeExclusive(temp, token);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return token;
}

/** Constant-time comparison; hashing first means neither the length nor a prefix leaks. */
export function tokensEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

/** A stable, non-secret name for whoever holds `token` (safe to log and to store as an owner). */
export function principalOf(token: string): string {
  return `token:${createHash('sha256').update(token, 'utf8').digest('hex').slice(0, 16)}`;
}

async function readExisting(home: string, log: Logger | undefined, file: TokenFile): Promise<string | undefined> {
  const path = tokenPath(home, file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const info = await stat(path);
  if (isLooserThanOwnerOnly(info.mode)) {
    log?.warn('the access token file was readable by others; setting it to 0600', {
      path,
      mode: (info.mode & 0o777).toString(8),
    });
    await chmod(path, 0o600);
  }
  const token = text.trim();
  if (TOKEN_PATTERN.test(token)) return token;
  log?.warn('the access token file holds no usable token (it needs at least 256 random bits); replacing it', { path });
  return rotateToken(home, file);
}

function tempPathFor(path: string): string {
  return `${path}.${randomBytes(6).toString('hex')}.tmp`;
}

async function writeExclusive(path: string, token: string): Promise<void> {
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.writeFile(`${token}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}
