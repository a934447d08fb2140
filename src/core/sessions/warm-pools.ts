import { isDeepStrictEqual } from 'node:util';
import type { Isolation } from '../../shared/domain/isolation';
import type { Limits } from '../../shared/domain/limits';
import type { Language } from '../../shared/domain/languages';
import type { ChannelKind } from '../../shared/domain/session';
import type { Logger } from '../log';
import type { SandboxDriver } from './sandbox-driver';
import type { ContainerEnv, SessionTemplate } from './session-template';
import { WarmPool } from './warm-pool';

/** What a warm-up names: a template without its limits (pools are made with the default limits of now). */
export type WarmTemplate = { language: Language; image: string; network?: string; env?: ContainerEnv; isolation: Isolation };

export interface WarmPoolsDeps {
  /** Ready sandboxes per pool (0: no pools) and the limits of new sessions that give none: settings that apply at once. */
  size: number;
  defaultLimits: Limits;
  /** The agent channel of the backend's sandboxes: part of what makes two sandboxes interchangeable. */
  channel(): ChannelKind;
  /** A new warm sandbox of this template (not started). */
  make(template: SessionTemplate): SandboxDriver;
  log: Logger;
  /** Resolves when a container replacing a claimed one may start (refill-gate.ts). */
  mayRefill?: () => Promise<void>;
}

/**
 * The warm pools, one per session template: ready sandboxes that a new session of that template takes (never
 * given back). Their size and the default limits they are made with follow Settings.
 */
export class WarmPools {
  private readonly pools = new Map<string, WarmPool>();
  private poolSize: number;
  private limits: Limits;

  constructor(private readonly deps: WarmPoolsDeps) {
    this.poolSize = deps.size;
    this.limits = deps.defaultLimits;
  }

  /** Ready sandboxes per pool (0: pools are off). */
  get size(): number {
    return this.poolSize;
  }

  /** The limits of sessions that give none of their own, and of every warm sandbox. */
  get defaultLimits(): Limits {
    return this.limits;
  }

  /** A ready sandbox of this template (or the one starting now), else undefined: the caller starts one cold. */
  claim(template: SessionTemplate): Promise<SandboxDriver | undefined> {
    return this.poolFor(template).claim();
  }

  /** Fills the pools of these templates side by side, up to their size (or `upTo` ready sandboxes, when smaller). */
  async warmUp(templates: WarmTemplate[], upTo?: number): Promise<void> {
    await Promise.all(templates.map((t) => this.poolFor({ ...t, limits: this.limits }).refill(upTo)));
  }

  /** New pool size: every pool shrinks or grows now. */
  setSize(size: number): void {
    this.poolSize = size;
    for (const pool of this.pools.values()) pool.resize(size);
  }

  /**
   * New default limits. Ready sandboxes were made with the old ones, so every pool is emptied, and filled again
   * with the new limits when `refill` says the engine can.
   */
  setDefaultLimits(limits: Limits, refill: boolean): void {
    if (isDeepStrictEqual(limits, this.limits)) return;
    this.limits = limits;
    const stale = [...this.pools.values()];
    this.pools.clear();
    void Promise.all(stale.map((pool) => pool.dispose()));
    if (this.poolSize > 0 && refill) {
      for (const pool of stale) void this.poolFor({ ...pool.template, limits }).refill();
    }
  }

  /** How many ready sandboxes each pool holds of how many, and whether it is filling. */
  status(): Array<{ key: string; ready: number; size: number; filling: boolean }> {
    return [...this.pools.values()].map((p) => ({ key: p.key, ready: p.available, size: p.targetSize, filling: p.filling }));
  }

  /** The engine came back: pools that gave up try again. */
  refillAll(): void {
    for (const pool of this.pools.values()) {
      pool.resetFailures();
      void pool.refill();
    }
  }

  /** Removes every warm sandbox and forgets every pool (a change of engine, or Sandpit quitting). */
  async empty(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.dispose()));
  }

  /** A ready sandbox an earlier core left, into the pool of its template (warm-handover.ts). */
  adopt(template: WarmTemplate, session: SandboxDriver): void {
    this.poolFor({ ...template, limits: this.limits }).adopt(session);
  }

  /**
   * Sandpit quits and hands warm sandboxes over: the ready ones of the pools `handOver` picks are given to the
   * caller with their template (not removed); every other one is removed as `empty` does.
   */
  async leave(handOver: (template: SessionTemplate) => boolean): Promise<Array<{ template: SessionTemplate; session: SandboxDriver }>> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    const left = await Promise.all(pools.map(async (p) => (handOver(p.template) ? (await p.leave()).map((session) => ({ template: p.template, session })) : (await p.dispose(), []))));
    return left.flat();
  }

  private poolFor(template: SessionTemplate): WarmPool {
    // Per-sandbox variables (a credential) are not part of the template: the network already is.
    const env = typeof template.env === 'function' ? 'per-sandbox' : (template.env ?? {});
    const key = JSON.stringify([template.language, template.image, template.limits, template.network ?? 'none', env, template.isolation, this.deps.channel()]);
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new WarmPool(key, template, this.poolSize, () => this.deps.make(template), this.deps.log, this.deps.mayRefill);
      this.pools.set(key, pool);
    }
    return pool;
  }
}
