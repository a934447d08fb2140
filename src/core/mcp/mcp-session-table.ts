/** The limits of MCP sessions over HTTP (one McpServer each): how many, and how long an unused one lives. */
export interface McpSessionLimits {
  /** MCP sessions one principal (bearer token) may hold; the next initialize evicts one that is idle, or is refused. */
  maxSessionsPerPrincipal: number;
  /** A session that had requests is closed after this long without one (and with none in flight). */
  idleTimeoutMs: number;
  /** A session that was initialized but never used (no request beyond `notifications/initialized`) lives this long. */
  unusedTimeoutMs: number;
}

export const DEFAULT_MCP_SESSION_LIMITS: McpSessionLimits = {
  // Per token; a client needs one, a few at most. 64 idle ones cost ~5 MiB.
  maxSessionsPerPrincipal: 64,
  // The sandboxes' own idle time (config.idleTtlMs): by then they are gone too.
  idleTimeoutMs: 30 * 60_000,
  // A real client sends its first request within seconds of initialize.
  unusedTimeoutMs: 2 * 60_000,
};

interface Entry<T> {
  id: string;
  principal: string;
  value: T;
  /** Requests on it now (POSTs being answered, GET streams open). */
  inFlight: number;
  /** When the last request ended (or began), ms. */
  lastActive: number;
  used: boolean;
}

/** What admitting one more session for a principal takes: the sessions to close first, or a refusal. */
export type Admission<T> =
  { ok: true; evicted: T[]; release: () => void } | { ok: false; sessions: number; busy: number };

/**
 * The bookkeeping of the open MCP sessions: per principal, with requests in flight and the time of the last
 * one. Decides which session makes room for a new one (idle first: never used before used, then the least
 * recently active) and which have expired. Holds no timers and closes nothing itself.
 */
export class McpSessionTable<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Initializes being answered now, per principal: they count against the cap until they are in. */
  private readonly opening = new Map<string, number>();

  constructor(
    private readonly limits: McpSessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(id: string): T | undefined {
    return this.entries.get(id)?.value;
  }

  principalOf(id: string): string | undefined {
    return this.entries.get(id)?.principal;
  }

  values(): T[] {
    return [...this.entries.values()].map((e) => e.value);
  }

  /** Sessions of this principal, counting the ones being opened. */
  countFor(principal: string): number {
    let count = this.opening.get(principal) ?? 0;
    for (const e of this.entries.values()) if (e.principal === principal) count += 1;
    return count;
  }

  /**
   * Room for one more session of `principal`: evicts (removes from the table and returns) as many idle
   * sessions as the cap needs, or refuses when the rest are all busy. On success the slot is held until
   * `add` or `release`.
   */
  admit(principal: string): Admission<T> {
    const evicted: T[] = [];
    while (this.countFor(principal) >= this.limits.maxSessionsPerPrincipal) {
      const victim = this.leastValuable(principal);
      if (!victim) {
        const own = [...this.entries.values()].filter((e) => e.principal === principal);
        return { ok: false, sessions: this.countFor(principal), busy: own.filter((e) => e.inFlight > 0).length };
      }
      this.entries.delete(victim.id);
      evicted.push(victim.value);
    }
    this.opening.set(principal, (this.opening.get(principal) ?? 0) + 1);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      const left = (this.opening.get(principal) ?? 1) - 1;
      if (left <= 0) this.opening.delete(principal);
      else this.opening.set(principal, left);
    };
    return { ok: true, evicted, release };
  }

  /** A session that finished its initialize (call the admission's release afterwards). */
  add(id: string, principal: string, value: T): void {
    this.entries.set(id, { id, principal, value, inFlight: 0, lastActive: this.now(), used: false });
  }

  delete(id: string): T | undefined {
    const entry = this.entries.get(id);
    this.entries.delete(id);
    return entry?.value;
  }

  /** A request on the session begins; `use` unless it only says `initialized`. The returned end is idempotent. */
  begin(id: string, use: boolean): () => void {
    const entry = this.entries.get(id);
    if (!entry) return () => undefined;
    entry.inFlight += 1;
    entry.lastActive = this.now();
    if (use) entry.used = true;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.inFlight -= 1;
      entry.lastActive = this.now();
    };
  }

  /** Removes and returns the sessions idle past their time (never one with a request in flight). */
  takeExpired(): T[] {
    const now = this.now();
    const expired: T[] = [];
    for (const e of [...this.entries.values()]) {
      const timeout = e.used ? this.limits.idleTimeoutMs : this.limits.unusedTimeoutMs;
      if (e.inFlight > 0 || now - e.lastActive < timeout) continue;
      this.entries.delete(e.id);
      expired.push(e.value);
    }
    return expired;
  }

  /** The idle session of `principal` to evict first: never used before used, then the least recently active. */
  private leastValuable(principal: string): Entry<T> | undefined {
    let best: Entry<T> | undefined;
    for (const e of this.entries.values()) {
      if (e.principal !== principal || e.inFlight > 0) continue;
      if (!best || lessValuable(e, best)) best = e;
    }
    return best;
  }
}

function lessValuable(a: { used: boolean; lastActive: number }, b: { used: boolean; lastActive: number }): boolean {
  if (a.used !== b.used) return !a.used;
  return a.lastActive < b.lastActive;
}
