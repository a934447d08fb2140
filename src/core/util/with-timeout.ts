import { SandpitError } from '../../shared/api/errors';
import type { ErrorCode } from '../../shared/api/errors';

/** Resolves like `promise`, or rejects with a typed error after `ms`. The timer never keeps the process alive. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string, code: ErrorCode = 'INTERNAL'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SandpitError(code, `${what} did not finish within ${ms} ms`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` every `intervalMs` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function pollUntil<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string, intervalMs = 10): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new SandpitError('INTERNAL', `${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
