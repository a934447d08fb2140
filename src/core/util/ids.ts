import { randomBytes } from 'node:crypto';

/** Short, URL- and label-safe random ids: `<prefix>-<hex>`. */
export function newId(prefix: string, bytes = 6): string {
  return `${prefix}-${randomBytes(bytes).toString('hex')}`;
}
