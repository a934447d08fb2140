import type { MethodName } from './contract';
import type { ErrorBody } from './errors';

/** What every transport answers for a call: the dispatcher's envelope. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: ErrorBody };

export type TransportEventListener = (name: string, payload: unknown) => void;

/**
 * Why the server refused this page's token: it had none (`missing`), the one it had never worked
 * (`invalid`), or it worked here and was then replaced by a new panel link (`replaced`).
 */
export type AccessProblem = 'missing' | 'invalid' | 'replaced';

/**
 * How the panel reaches the core: IPC in the desktop app, HTTP (/api + SSE) in a browser.
 * `invoke` resolves with the envelope the other side answered (the client checks its shape) and rejects
 * only when the other side could not be reached. `subscribe` returns its unsubscribe function.
 */
export interface Transport {
  readonly kind: 'ipc' | 'http';
  invoke(method: MethodName, input: unknown): Promise<unknown>;
  subscribe(listener: TransportEventListener): () => void;
  /**
   * Whether the core is reachable now: told `false` when it stops answering (its event stream goes
   * quiet), `true` when it is back. IPC never loses the core (they live and die together).
   */
  onLink?(listener: (up: boolean) => void): () => void;
  /** Uses another access token from now on (a panel link pasted into this tab, or a new link made here). */
  setToken?(token: string): void;
  /** Told when the server refuses this page's token (never, over IPC), and why. */
  onRefused?(listener: (problem: AccessProblem) => void): () => void;
}

/** What the preload exposes as `window.sandpit` (only plain data and functions cross the bridge). */
export interface SandpitBridge {
  invoke(method: string, input: unknown): Promise<unknown>;
  subscribe(listener: TransportEventListener): () => void;
}

/** IPC channel of a method: `sandpit:<method>`. Main registers exactly these; the preload allows exactly these. */
export const IPC_METHOD_PREFIX = 'sandpit:';
/** The one IPC channel live events travel on, as (name, payload). */
export const IPC_EVENT_CHANNEL = 'sandpit:event';

export function ipcChannelFor(method: string): string {
  return IPC_METHOD_PREFIX + method;
}
