import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { lstat, open, readFile } from 'node:fs/promises';
import { SandpitError } from '../../shared/api/errors';

/**
 * How secret values are sealed at rest. Two implementations: a key file (headless: `sandpit serve`,
 * `sandpit mcp`), and the operating system's keychain through Electron's safeStorage, which src/main
 * injects (src/core never imports electron).
 */
export interface SecretCipher {
  /** What protects the values, in plain words (Settings shows it). */
  readonly protection: 'key-file' | 'os-keychain';
  seal(plain: Buffer, context: string): Promise<Buffer>;
  /** Throws when the sealed bytes were altered or sealed with another key. */
  open(sealed: Buffer, context: string): Promise<Buffer>;
}

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 1;

/** Reads the key file, or makes it (32 random bytes, mode 0600, exclusive create) when there is none. */
async function loadKey(path: string): Promise<Buffer> {
  try {
    const handle = await open(path, 'wx', 0o600);
    const key = randomBytes(KEY_BYTES);
    try {
      await handle.writeFile(key);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const st = await lstat(path);
  if (!st.isFile() || (st.mode & 0o077) !== 0) {
    throw new SandpitError('CONFLICT', `The secrets key file ${path} is not a private file (mode 0600): secrets stay locked until it is.`);
  }
  const key = await readFile(path);
  if (key.length !== KEY_BYTES) throw new SandpitError('CONFLICT', `The secrets key file ${path} is not a key Sandpit made (wrong length).`);
  return key;
}

/**
 * AES-256-GCM with a key in a file of its own (mode 0600) in the data folder. Sealed form:
 * version byte, 12-byte IV, 16-byte tag, ciphertext; the context (the secret's name) is authenticated data,
 * so a sealed value cannot be moved to another secret.
 */
export function keyFileCipher(keyPath: string): SecretCipher {
  let key: Promise<Buffer> | undefined;
  const theKey = (): Promise<Buffer> => (key ??= loadKey(keyPath).catch((error: unknown) => {
    key = undefined;
    throw error;
  }));
  return {
    protection: 'key-file',
    seal: async (plain, context) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', await theKey(), iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
    },
    open: async (sealed, context) => {
      if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== VERSION) throw new SandpitError('CONFLICT', 'A sealed secret is not in a form Sandpit wrote.');
      const iv = sealed.subarray(1, 1 + IV_BYTES);
      const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', await theKey(), iv);
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
      } catch {
        throw new SandpitError('CONFLICT', `The secret "${context}" cannot be unlocked: it was altered, or sealed with another key.`);
      }
    },
  };
}
