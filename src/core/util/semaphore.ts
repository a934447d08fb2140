import { SandpitError } from '../../shared/api/errors';

/** A counting semaphore with FIFO waiters; `acquire` times out with LIMIT_EXCEEDED. */
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<{ grant: () => void }> = [];

  constructor(private readonly capacity: number) {}

  get inUse(): number {
    return this.active;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  async acquire(timeoutMs: number, what: string): Promise<() => void> {
    if (this.active < this.capacity) {
      this.active += 1;
      return this.releaser();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: (): void => {
          clearTimeout(timer);
          this.active += 1;
          resolve(this.releaser());
        },
      };
      const timer = setTimeout(() => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(new SandpitError('LIMIT_EXCEEDED', `${what}: still waiting for a free slot after ${timeoutMs} ms (${this.capacity} runs at once).`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
      this.waiters.shift()?.grant();
    };
  }
}
