import { safeStorage } from 'electron';
import { SandpitError } from '../shared/api/errors';
import type { SecretCipher } from '../core/egress/secret-cipher';

/**
 * Secrets (issue 18) sealed by the operating system's keychain (Electron's safeStorage: Keychain on macOS,
 * DPAPI on Windows, the desktop's secret service on Linux). Undefined where the OS offers none (Linux with no
 * keyring: safeStorage would fall back to a hard-coded key), so the core uses its key file instead.
 * The context (the secret's name) is sealed with the value and checked on open.
 */
export function keychainCipher(): SecretCipher | undefined {
  if (!safeStorage.isEncryptionAvailable()) return undefined;
  if (process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text') return undefined;
  return {
    protection: 'os-keychain',
    seal: (plain, context) => Promise.resolve(safeStorage.encryptString(`${context}\n${plain.toString('base64')}`)),
    open: (sealed, context) => {
      const text = safeStorage.decryptString(sealed);
      const cut = text.indexOf('\n');
      if (cut < 0 || text.slice(0, cut) !== context) throw new SandpitError('CONFLICT', `The secret "${context}" cannot be unlocked: it was altered, or sealed for another secret.`);
      return Promise.resolve(Buffer.from(text.slice(cut + 1), 'base64'));
    },
  };
}
