import type { EngineStatus } from '../../shared/domain/engine';
import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';
import type { SandboxBackend } from '../sandbox/sandbox-backend';

const MAX_BACKOFF_MS = 30_000;

/**
 * Knows whether the engine is up, reconnects with exponential back-off when it is lost, and tells
 * listeners about every change. Never throws from its timers.
 */
/** How long one check waits for the engine's answer before it says the engine did not answer. */
export const PING_TIMEOUT_MS = 15_000;

export class EngineMonitor {
  private status: EngineStatus;
  private timer: NodeJS.Timeout | undefined;
  private backoffMs = 500;
  private disposed = false;
  private readonly listeners: Array<(status: EngineStatus) => void> = [];
  private readonly upListeners: Array<() => Promise<void>> = [];

  constructor(
    private readonly backend: Pick<SandboxBackend, 'ping' | 'endpoint' | 'fixHint'>,
    private readonly log: Logger,
  ) {
    this.status = { state: 'connecting', endpoint: backend.endpoint.address };
  }

  get current(): EngineStatus {
    return this.status;
  }

  onChange(listener: (status: EngineStatus) => void): void {
    this.listeners.push(listener);
  }

  /** Work to redo each time the engine comes (back) up, e.g. re-follow events. */
  onUp(listener: () => Promise<void>): void {
    this.upListeners.push(listener);
  }

  /** One check now; resolves with the resulting status. */
  async check(): Promise<EngineStatus> {
    try {
      // An engine that is gone fails at once (no socket, refused); a busy one can be slow to answer: Podman's
      // /version took 5–7.5 s on a loaded 2-core machine, and a slow answer is not a missing engine.
      const v = await this.backend.ping(PING_TIMEOUT_MS);
      const wasUp = this.status.state === 'up';
      this.set({ state: 'up', endpoint: this.backend.endpoint.address, ...this.source(), version: v.version, product: v.product, runtimes: v.runtimes });
      // A retry planned while it was down (maybe 30 s away) goes: the next loss must be retried from 500 ms, not then.
      this.backoffMs = 500;
      clearTimeout(this.timer);
      this.timer = undefined;
      if (!wasUp) for (const l of this.upListeners) await l().catch((error: unknown) => this.log.warn('engine-up hook failed', { error: toErrorBody(error).message }));
    } catch (error) {
      this.markDown(toErrorBody(error).message);
    }
    return this.status;
  }

  /** Called when something noticed the engine is gone (event stream lost, a call failed with DOCKER_UNAVAILABLE). */
  markDown(message: string): void {
    if (this.disposed) return;
    this.set({ state: 'down', endpoint: this.backend.endpoint.address, ...this.source(), message, fix: this.backend.fixHint() });
    this.scheduleReconnect();
  }

  /** Throws DOCKER_UNAVAILABLE unless the engine is up. */
  assertUp(): void {
    if (this.status.state !== 'up') {
      const message = this.status.message ?? 'Docker is not reachable.';
      const fix = this.status.fix ?? this.backend.fixHint();
      // The engine's own error often says what to do already: said once.
      throw new SandpitError('DOCKER_UNAVAILABLE', message.includes(fix) ? message : `${message} ${fix}`);
    }
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
  }

  private scheduleReconnect(): void {
    if (this.timer || this.disposed) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.check();
    }, delay);
    this.timer.unref();
  }

  private source(): { source?: string } {
    const source = this.backend.endpoint.source;
    return source === undefined ? {} : { source };
  }

  private set(next: EngineStatus): void {
    const changed = next.state !== this.status.state || next.message !== this.status.message || next.endpoint !== this.status.endpoint;
    this.status = next;
    if (changed) {
      this.log.info('engine status', { state: next.state, message: next.message });
      for (const l of this.listeners) l(next);
    }
  }
}
