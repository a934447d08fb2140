import { toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';
import type { SandboxRuntime } from './sandbox-runtime';
import type { SessionTemplate } from './session-manager';

/**
 * Ready sandboxes for one session template (image + limits + channel). A claim takes one at once;
 * the pool refills one container at a time in the background. A claimed container belongs to its
 * session for good: it is never returned to the pool.
 */
const REFILL_DELAY_MS = 250;

export class WarmPool {
  private readonly ready: SandboxRuntime[] = [];
  private refilling: Promise<void> | undefined;
  private disposed = false;
  private failures = 0;

  constructor(
    readonly key: string,
    /** What every sandbox of this pool is made from. */
    readonly template: SessionTemplate,
    private size: number,
    private readonly make: () => SandboxRuntime,
    private readonly log: Logger,
  ) {}

  get available(): number {
    return this.ready.length;
  }

  get filling(): boolean {
    return this.refilling !== undefined;
  }

  get targetSize(): number {
    return this.size;
  }

  /** A ready session, or undefined when the pool is empty (the caller starts one cold). */
  claim(): SandboxRuntime | undefined {
    let session = this.ready.shift();
    while (session && !session.connected) {
      void session.remove().catch(() => undefined);
      session = this.ready.shift();
    }
    // Refill a moment later after a hit, so starting a container does not compete with the claimed
    // session's first run; at once after a miss.
    if (session) setTimeout(() => void this.refill(), REFILL_DELAY_MS).unref();
    else void this.refill();
    return session;
  }

  resize(size: number): void {
    this.size = size;
    while (this.ready.length > size) void this.ready.pop()?.remove().catch(() => undefined);
    void this.refill();
  }

  /** Starts filling if below size; resolves when this round of filling ends. */
  refill(): Promise<void> {
    if (this.disposed || this.refilling || this.ready.length >= this.size) return this.refilling ?? Promise.resolve();
    this.refilling = (async () => {
      while (!this.disposed && this.ready.length < this.size && this.failures < 3) {
        const session = this.make();
        try {
          await session.start();
          if (this.disposed) {
            await session.remove();
            return;
          }
          this.ready.push(session);
          this.failures = 0;
        } catch (error) {
          this.failures += 1;
          this.log.warn('could not start a warm sandbox', { pool: this.key, error: toErrorBody(error).message });
        }
      }
    })().finally(() => {
      this.refilling = undefined;
    });
    return this.refilling;
  }

  /** Lets the pool try again after failures (e.g. when the engine came back). */
  resetFailures(): void {
    this.failures = 0;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.refilling?.catch(() => undefined);
    await Promise.all(this.ready.splice(0).map((s) => s.remove().catch(() => undefined)));
  }
}
