import { randomFillSync } from 'node:crypto';

/** Random bytes drawn from the OS in blocks (a run makes several ids: one system call per id was measurable). */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;

/** `bytes` fresh random bytes as hex; each byte of the pool is handed out once. */
function randomHex(bytes: number): string {
  if (bytes > POOL_BYTES) return randomFillSync(Buffer.alloc(bytes)).toString('hex');
  if (used + bytes > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const hex = pool.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}

/** Short, URL- and label-safe random ids: `<prefix>-<hex>`. */
export function newId(prefix: string, bytes = 6): string {
  return `${prefix}-${randomHex(bytes)}`;
}
