import { describe, expect, it } from 'vitest';
import { silentLogger } from '../log';
import { pollUntil } from '../util/with-timeout';
import type { SandboxDriver } from './sandbox-driver';
import type { SessionTemplate } from './session-template';
import { RefillGate } from './refill-gate';
import { WarmPool } from './warm-pool';

const TEMPLATE = { language: 'python', image: 'sandpit-fake:1' } as SessionTemplate;

/** Just what the pool uses of a SandboxDriver: start, remove, connected. */
class FakeSession {
  connected = false;
  removed = 0;
  started = false;
  private finishStart: ((error?: Error) => void) | undefined;

  constructor(
    readonly id: string,
    private readonly factory: FakeFactory,
  ) {}

  start(): Promise<void> {
    this.factory.starting += 1;
    this.factory.maxStarting = Math.max(this.factory.maxStarting, this.factory.starting);
    return new Promise<void>((resolve, reject) => {
      this.finishStart = (error) => {
        this.factory.starting -= 1;
        if (error) return reject(error);
        this.started = true;
        this.connected = true;
        resolve();
      };
      if (this.factory.autoStart) this.succeed();
      else if (this.factory.failNext > 0) {
        this.factory.failNext -= 1;
        this.fail(new Error('engine said no'));
      }
    });
  }

  succeed(): void {
    this.finishStart?.();
  }

  fail(error: Error): void {
    this.finishStart?.(error);
  }

  remove(): Promise<void> {
    this.removed += 1;
    this.connected = false;
    return Promise.resolve();
  }
}

class FakeFactory {
  readonly made: FakeSession[] = [];
  starting = 0;
  maxStarting = 0;
  autoStart: boolean;
  failNext = 0;

  constructor(autoStart = true) {
    this.autoStart = autoStart;
  }

  readonly make = (): SandboxDriver => {
    const session = new FakeSession(`ses-${this.made.length + 1}`, this);
    this.made.push(session);
    return session as unknown as SandboxDriver;
  };
}

function fake(session: SandboxDriver | undefined): FakeSession {
  if (!session) throw new Error('expected a session');
  return session as unknown as FakeSession;
}

describe('WarmPool', () => {
  it('fills up to its size, starting one sandbox at a time', async () => {
    const factory = new FakeFactory(false);
    const pool = new WarmPool('python', TEMPLATE, 3, factory.make, silentLogger);
    const filled = pool.refill();
    for (let n = 1; n <= 3; n += 1) {
      await pollUntil(() => (factory.made.length === n ? true : undefined), 2_000, `sandbox ${n} to be made`);
      expect(factory.starting).toBe(1);
      factory.made[n - 1]?.succeed();
    }
    await filled;
    expect(pool.available).toBe(3);
    expect(factory.made).toHaveLength(3);
    expect(factory.maxStarting).toBe(1);
    await pool.dispose();
  });

  it('does not start a second round of filling while one is running', async () => {
    const factory = new FakeFactory(false);
    const pool = new WarmPool('python', TEMPLATE, 1, factory.make, silentLogger);
    const first = pool.refill();
    const second = pool.refill();
    expect(factory.made).toHaveLength(1);
    factory.made[0]?.succeed();
    await Promise.all([first, second]);
    expect(pool.available).toBe(1);
    expect(factory.made).toHaveLength(1);
    await pool.dispose();
  });

  it('hands out a ready sandbox on claim and refills behind it', async () => {
    const factory = new FakeFactory();
    const pool = new WarmPool('python', TEMPLATE, 2, factory.make, silentLogger);
    await pool.refill();
    const claimed = fake(await pool.claim());
    expect(claimed.started).toBe(true);
    expect(claimed.connected).toBe(true);
    expect(claimed.id).toBe('ses-1');
    await pool.refill();
    expect(pool.available).toBe(2);
    expect(factory.made).toHaveLength(3);
    await pool.dispose();
  });

  it('replaces a claimed sandbox only once bulk work holding the gate ends (a restore writing into it)', async () => {
    const factory = new FakeFactory();
    const gate = new RefillGate();
    const pool = new WarmPool('python', TEMPLATE, 1, factory.make, silentLogger, () => gate.clear());
    await pool.refill();
    const release = gate.hold();
    expect(fake(await pool.claim()).id).toBe('ses-1');
    // the refill's own delay passes, and still nothing starts while the gate is held
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(factory.made).toHaveLength(1);
    expect(pool.available).toBe(0);
    release();
    await pollUntil(() => (pool.available === 1 ? true : undefined), 2_000, 'the replacement once the gate opened');
    expect(factory.made).toHaveLength(2);
    await pool.dispose();
  });

  it('when empty with nothing starting, a claim starts one and waits for it (one start, not a cold one beside the pool\'s)', async () => {
    const factory = new FakeFactory(false);
    const pool = new WarmPool('python', TEMPLATE, 1, factory.make, silentLogger);
    const claimed = pool.claim();
    expect(factory.made).toHaveLength(1);
    // a second claim meanwhile starts cold (undefined): one waiter per start
    expect(await pool.claim()).toBeUndefined();
    expect(factory.made).toHaveLength(1);
    factory.made[0]?.succeed();
    expect(fake(await claimed).id).toBe('ses-1');
    // and the pool fills again behind it
    await pollUntil(() => (factory.made.length === 2 ? true : undefined), 2_000, 'the refill after the hand-off');
    factory.made[1]?.succeed();
    await pool.dispose();
  });

  it('a pool of size 0 starts nothing: the claim says undefined at once (the caller starts one cold)', async () => {
    const factory = new FakeFactory(false);
    const pool = new WarmPool('python', TEMPLATE, 0, factory.make, silentLogger);
    expect(await pool.claim()).toBeUndefined();
    expect(factory.made).toHaveLength(0);
    await pool.dispose();
  });

  it('hands the sandbox starting now to one claim as it comes up; a second claim starts cold', async () => {
    const factory = new FakeFactory(false);
    const pool = new WarmPool('python', TEMPLATE, 1, factory.make, silentLogger);
    const filling = pool.refill();
    const first = pool.claim();
    expect(await pool.claim()).toBeUndefined();
    expect(factory.made).toHaveLength(1); // no second start beside the one the first claim waits for
    factory.made[0]?.succeed();
    expect(fake(await first).id).toBe('ses-1');
    expect(pool.available).toBe(0);
    // The pool fills again behind the hand-off.
    await pollUntil(() => (factory.made.length === 2 ? true : undefined), 2_000, 'the refill after the hand-off');
    factory.made[1]?.succeed();
    await filling;
    expect(pool.available).toBe(1);
    await pool.dispose();
  });

  it('a claim waiting for a start that fails gets undefined (and starts cold)', async () => {
    const factory = new FakeFactory(false);
    const pool = new WarmPool('python', TEMPLATE, 1, factory.make, silentLogger);
    void pool.refill();
    const claimed = pool.claim();
    factory.autoStart = true; // the pool's next try comes up
    factory.made[0]?.fail(new Error('engine said no'));
    expect(await claimed).toBeUndefined();
    await pool.dispose();
  });

  it('a claim waiting for a start is let go when the pool is disposed', async () => {
    const factory = new FakeFactory(false);
    const pool = new WarmPool('python', TEMPLATE, 1, factory.make, silentLogger);
    void pool.refill();
    const claimed = pool.claim();
    const disposed = pool.dispose();
    factory.made[0]?.succeed();
    await disposed;
    expect(await claimed).toBeUndefined();
    expect(factory.made[0]?.removed).toBe(1);
  });

  it('never hands out the same sandbox twice', async () => {
    const factory = new FakeFactory();
    const pool = new WarmPool('python', TEMPLATE, 2, factory.make, silentLogger);
    const seen = new Set<string>();
    for (let round = 0; round < 6; round += 1) {
      await pool.refill();
      const claimed = fake(await pool.claim());
      expect(seen.has(claimed.id)).toBe(false);
      seen.add(claimed.id);
    }
    expect(seen.size).toBe(6);
    await pool.dispose();
    // Disposing the pool leaves claimed sandboxes to their sessions.
    expect(factory.made.filter((s) => seen.has(s.id)).every((s) => s.removed === 0)).toBe(true);
  });

  it('discards (removes) sandboxes that lost their connection and hands out the next live one', async () => {
    const factory = new FakeFactory();
    const pool = new WarmPool('python', TEMPLATE, 3, factory.make, silentLogger);
    await pool.refill();
    const [first, second, third] = factory.made;
    if (!first || !second || !third) throw new Error('expected three sandboxes');
    first.connected = false;
    second.connected = false;
    const claimed = fake(await pool.claim());
    expect(claimed).toBe(third);
    expect(first.removed).toBe(1);
    expect(second.removed).toBe(1);
    expect(third.removed).toBe(0);
    await pool.dispose();
  });

  it('when every ready sandbox lost its connection, removes them and hands out a fresh one it starts', async () => {
    const factory = new FakeFactory();
    const pool = new WarmPool('python', TEMPLATE, 2, factory.make, silentLogger);
    await pool.refill();
    for (const s of factory.made) s.connected = false;
    const claimed = fake(await pool.claim());
    expect(claimed.id).toBe('ses-3');
    expect(claimed.connected).toBe(true);
    expect(factory.made.slice(0, 2).map((s) => s.removed)).toEqual([1, 1]);
    await pool.dispose();
  });

  it('removes the ready sandboxes on dispose and makes no more', async () => {
    const factory = new FakeFactory();
    const pool = new WarmPool('python', TEMPLATE, 2, factory.make, silentLogger);
    await pool.refill();
    await pool.dispose();
    expect(factory.made.map((s) => s.removed)).toEqual([1, 1]);
    expect(pool.available).toBe(0);
    expect(await pool.claim()).toBeUndefined();
    await pool.refill();
    expect(factory.made).toHaveLength(2);
  });

  it('removes a sandbox that finishes starting after dispose', async () => {
    const factory = new FakeFactory(false);
    const pool = new WarmPool('python', TEMPLATE, 2, factory.make, silentLogger);
    void pool.refill();
    const disposed = pool.dispose();
    factory.made[0]?.succeed();
    await disposed;
    expect(factory.made).toHaveLength(1);
    expect(factory.made[0]?.removed).toBe(1);
    expect(pool.available).toBe(0);
  });

  it('removes the ready sandboxes on dispose at once, without waiting for the one still starting', async () => {
    const factory = new FakeFactory(false);
    const pool = new WarmPool('python', TEMPLATE, 2, factory.make, silentLogger);
    const filled = pool.refill();
    await pollUntil(() => (factory.made.length === 1 ? true : undefined), 2_000, 'the first sandbox to be made');
    factory.made[0]?.succeed();
    await pollUntil(() => (factory.made.length === 2 ? true : undefined), 2_000, 'the second sandbox to be made');
    const disposed = pool.dispose();
    // The second is still starting: the first, ready, is removed meanwhile.
    await pollUntil(() => (factory.made[0]?.removed === 1 ? true : undefined), 2_000, 'the ready sandbox to be removed');
    expect(factory.made[1]?.removed).toBe(0);
    factory.made[1]?.succeed();
    await disposed;
    await filled;
    expect(factory.made.map((s) => s.removed)).toEqual([1, 1]);
    expect(pool.available).toBe(0);
  });

  it('stops after 3 failed starts in a row until resetFailures', async () => {
    const factory = new FakeFactory(false);
    factory.failNext = 3;
    const pool = new WarmPool('python', TEMPLATE, 2, factory.make, silentLogger);
    await pool.refill();
    expect(factory.made).toHaveLength(3);
    expect(pool.available).toBe(0);

    expect(await pool.claim()).toBeUndefined();
    await pool.refill();
    expect(factory.made).toHaveLength(3);

    pool.resetFailures();
    factory.autoStart = true;
    await pool.refill();
    expect(pool.available).toBe(2);
    expect(factory.made).toHaveLength(5);
    await pool.dispose();
  });

  it('counts only consecutive failures', async () => {
    const factory = new FakeFactory(false);
    const pool = new WarmPool('python', TEMPLATE, 3, factory.make, silentLogger);
    const filled = pool.refill();
    // fail, fail, succeed, fail, fail, succeed, succeed: never 3 in a row.
    const plan = [false, false, true, false, false, true, true];
    for (let n = 0; n < plan.length; n += 1) {
      await pollUntil(() => (factory.made.length === n + 1 ? true : undefined), 2_000, `sandbox ${n + 1}`);
      if (plan[n]) factory.made[n]?.succeed();
      else factory.made[n]?.fail(new Error('flaky'));
    }
    await filled;
    expect(pool.available).toBe(3);
    await pool.dispose();
  });

  it('shrinks and grows with resize', async () => {
    const factory = new FakeFactory();
    const pool = new WarmPool('python', TEMPLATE, 3, factory.make, silentLogger);
    await pool.refill();
    pool.resize(1);
    expect(pool.available).toBe(1);
    expect(factory.made.filter((s) => s.removed === 1)).toHaveLength(2);
    pool.resize(2);
    await pool.refill();
    expect(pool.available).toBe(2);
    await pool.dispose();
  });

  it('leaving gives its ready, connected sandboxes to the caller without removing them; the one starting and the ones that lost their connection are removed', async () => {
    const factory = new FakeFactory(false);
    const pool = new WarmPool('python', TEMPLATE, 3, factory.make, silentLogger);
    const filled = pool.refill();
    for (let n = 1; n <= 2; n += 1) {
      await pollUntil(() => (factory.made.length === n ? true : undefined), 2_000, `sandbox ${n} to be made`);
      factory.made[n - 1]?.succeed();
    }
    await pollUntil(() => (factory.made.length === 3 ? true : undefined), 2_000, 'the third start');
    factory.made[1]!.connected = false; // lost its connection while ready
    const leaving = pool.leave();
    factory.made[2]?.succeed(); // comes up after the pool ended: removes itself
    const left = await leaving;
    await filled;
    expect(left.map((s) => fake(s).id)).toEqual(['ses-1']);
    expect(factory.made.map((s) => s.removed)).toEqual([0, 1, 1]);
    // ended: it starts nothing more, and a sandbox given to it now is removed
    expect(await pool.claim()).toBeUndefined();
    const late = new FakeFactory();
    const adopted = late.make();
    pool.adopt(adopted);
    expect(fake(adopted).removed).toBe(1);
  });

  it('a sandbox an earlier core left is claimed like its own', async () => {
    const factory = new FakeFactory();
    const pool = new WarmPool('python', TEMPLATE, 1, factory.make, silentLogger);
    const left = new FakeFactory();
    const session = left.make();
    await session.start();
    pool.adopt(session);
    expect(pool.available).toBe(1);
    // one more than its size is removed: the earlier core's pools may have been bigger
    const extra = left.make();
    await extra.start();
    pool.adopt(extra);
    expect(fake(extra).removed).toBe(1);
    expect(pool.available).toBe(1);
    expect(await pool.claim()).toBe(session);
    await pool.dispose();
  });
});
