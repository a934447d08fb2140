import type { MethodName } from './contract';
import type { ErrorBody } from './errors';

/** What every transport answers for a call: the dispatcher's envelope. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: ErrorBody };

export type TransportEventListener = (name: string, payload: unknown) => void;

/**
 * How the panel reaches the core: IPC in the desktop app, HTTP (/api + SSE) in a browser.
 * `invoke` resolves with the envelope the other side answered (the client checks its shape) and rejects
 * only when the other side could not be reached. `subscribe` returns its unsubscribe function.
 */
export interface Transport {
  readonly kind: 'ipc' | 'http';
  invoke(method: MethodName, input: unknown): Promise<unknown>;
  subscribe(listener: TransportEventListener): () => void;
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
