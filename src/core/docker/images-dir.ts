import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository's `executor-image/` directory, found relative to this source file (works under tsx
 * and vitest). A packaged app ships the directory elsewhere and passes its own `imagesDir`.
 */
export function defaultImagesDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '../../../executor-image');
}
