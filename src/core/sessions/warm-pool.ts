import { toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';
import type { SandboxDriver } from './sandbox-driver';
import type { SessionTemplate } from './session-template';

/**
 * Ready sandboxes for one session template (image + limits + channel). A claim takes one at once;
 * the pool refills one container at a time in the background. A claim that finds none ready but one
 * starting takes that one as it comes up (it is further along than a cold start, and a cold start beside
 * it would slow both). A claimed container belongs to its session for good: it is never returned.
 */
const REFILL_DELAY_MS = 250;

export class WarmPool {
  private readonly ready: SandboxDriver[] = [];
  private refilling: Promise<void> | undefined;
  /** A sandbox is starting now. */
  private starting = false;
  /** The claim waiting for the sandbox starting now (at most one: the others start cold). */
  private waiter: ((session: SandboxDriver | undefined) => void) | undefined;
  private disposed = false;
  private failures = 0;

  constructor(
    readonly key: string,
    /** What every sandbox of this pool is made from. */
    readonly template: SessionTemplate,
    private size: number,
    private readonly make: () => SandboxDriver,
    private readonly log: Logger,
    /** Resolves when the container replacing a claimed one may start (refill-gate.ts: not beside bulk work). */
    private readonly mayRefill: () => Promise<void> = () => Promise.resolve(),
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

  /**
   * A ready sandbox; else the one starting now (started by this claim when none was), once it is up, unless
   * another claim waits for it; else undefined: the caller starts one cold (a second claim at once, a pool of
   * size 0, or one that gave up after failures). A claim that finds the pool empty thus waits for one start, not
   * for a cold one beside the pool's own (two at once took ≈ 1.8 s here where one took ≈ 0.7).
   */
  async claim(): Promise<SandboxDriver | undefined> {
    let session = this.ready.shift();
    while (session && !session.connected) {
      void session.remove().catch(() => undefined);
      session = this.ready.shift();
    }
    if (session) {
      // Refill a moment later, so starting a container does not compete with the claimed session's first run (nor
      // with bulk work into it, such as a restore: then once that is done).
      setTimeout(() => void this.mayRefill().then(() => this.refill()), REFILL_DELAY_MS).unref();
      return session;
    }
    // Nothing starting: the pool starts one now (refill sets `starting` before its first wait).
    if (!this.starting) void this.refill();
    if (this.starting && !this.waiter && !this.disposed) {
      return new Promise<SandboxDriver | undefined>((resolve) => {
        this.waiter = resolve;
      });
    }
    return undefined;
  }

  /** The waiting claim gets `session` (undefined: it starts one cold); true if there was one. */
  private handOff(session: SandboxDriver | undefined): boolean {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(session);
    return waiter !== undefined;
  }

  resize(size: number): void {
    this.size = size;
    while (this.ready.length > size) void this.ready.pop()?.remove().catch(() => undefined);
    void this.refill();
  }

  /** Starts filling if below size (or `upTo`, when smaller); resolves when this round of filling ends. */
  refill(upTo = this.size): Promise<void> {
    const target = (): number => Math.min(upTo, this.size);
    if (this.disposed || this.refilling || this.ready.length >= target()) return this.refilling ?? Promise.resolve();
    this.refilling = (async () => {
      while (!this.disposed && this.ready.length < target() && this.failures < 3) {
        const session = this.make();
        this.starting = true;
        try {
          await session.start();
          this.starting = false;
          if (this.disposed) {
            await session.remove();
            return;
          }
          this.failures = 0;
          if (this.handOff(session)) await new Promise((resolve) => setTimeout(resolve, REFILL_DELAY_MS).unref());
          else this.ready.push(session);
        } catch (error) {
          this.starting = false;
          this.handOff(undefined);
          this.failures += 1;
          this.log.warn('could not start a warm sandbox', { pool: this.key, error: toErrorBody(error).message });
        }
      }
    })().finally(() => {
      this.starting = false;
      this.handOff(undefined);
      this.refilling = undefined;
    });
    return this.refilling;
  }

  /** Lets the pool try again after failures (e.g. when the engine came back). */
  resetFailures(): void {
    this.failures = 0;
  }

  /**
   * A ready sandbox of this template that an earlier core left (warm-handover.ts): claimed like the pool's own. One
   * more than the pool's size is removed (the earlier core may have had bigger pools).
   */
  adopt(session: SandboxDriver): void {
    if (this.disposed || this.ready.length >= this.size) {
      void session.remove().catch(() => undefined);
      return;
    }
    this.ready.push(session);
  }

  /**
   * Ends the pool and gives its ready sandboxes to the caller instead of removing them (to hand them over to the
   * next core); the one still starting removes itself once up. Resolves once that start ended.
   */
  async leave(): Promise<SandboxDriver[]> {
    this.disposed = true;
    const ready = this.ready.splice(0);
    const lost = ready.filter((s) => !s.connected);
    await Promise.all([this.refilling?.catch(() => undefined), ...lost.map((s) => s.remove().catch(() => undefined))]);
    return ready.filter((s) => !lost.includes(s));
  }

  /**
   * Removes the ready sandboxes at once, beside the one still starting (which removes itself once up): a client
   * that closes Sandpit gives it a few seconds before it kills it, and what is not removed by then is left behind.
   */
  async dispose(): Promise<void> {
    this.disposed = true;
    const ready = this.ready.splice(0);
    await Promise.all([this.refilling?.catch(() => undefined), ...ready.map((s) => s.remove().catch(() => undefined))]);
  }
}
