import { toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';
import type { ContainerSession } from './container-session';

/**
 * Ready sandboxes for one session template (image + limits + channel). A claim takes one at once;
 * the pool refills one container at a time in the background. A claimed container belongs to its
 * session for good: it is never returned to the pool.
 */
export class WarmPool {
  private readonly ready: ContainerSession[] = [];
  private filling: Promise<void> | undefined;
  private disposed = false;
  private failures = 0;

  constructor(
    readonly key: string,
    private size: number,
    private readonly make: () => ContainerSession,
    private readonly log: Logger,
  ) {}

  get available(): number {
    return this.ready.length;
  }

  /** A ready session, or undefined when the pool is empty (the caller starts one cold). */
  claim(): ContainerSession | undefined {
    let session = this.ready.shift();
    while (session && !session.connected) {
      void session.remove().catch(() => undefined);
      session = this.ready.shift();
    }
    void this.refill();
    return session;
  }

  resize(size: number): void {
    this.size = size;
    while (this.ready.length > size) void this.ready.pop()?.remove().catch(() => undefined);
    void this.refill();
  }

  /** Starts filling if below size; resolves when this round of filling ends. */
  refill(): Promise<void> {
    if (this.disposed || this.filling || this.ready.length >= this.size) return this.filling ?? Promise.resolve();
    this.filling = (async () => {
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
      this.filling = undefined;
    });
    return this.filling;
  }

  /** Lets the pool try again after failures (e.g. when the engine came back). */
  resetFailures(): void {
    this.failures = 0;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.filling?.catch(() => undefined);
    await Promise.all(this.ready.splice(0).map((s) => s.remove().catch(() => undefined)));
  }
}
