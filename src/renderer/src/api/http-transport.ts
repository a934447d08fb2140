import { SandpitError } from '../../../shared/api/errors';
import type { AccessProblem, Transport, TransportEventListener } from '../../../shared/api/transport';
import { SseParser, readSse } from './sse-parser';

export interface HttpTransportOptions {
  /** The bearer token from the panel link (switched with setToken when a new link arrives). */
  token: string;
  /** Origin of the Sandpit server; default: the page's own (''). */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** First reconnect delay of the event stream; doubles up to maxRetryMs. */
  retryMs?: number;
  maxRetryMs?: number;
  /** The event stream counts as lost when nothing (not even a heartbeat) came for this long. */
  silenceMs?: number;
  /** Whether this token already opened Sandpit in this tab (a later refusal then means it was replaced). */
  accepted?: boolean;
  /** Called the first time the server accepts the current token. */
  onAccepted?: () => void;
}

/** The server sends a heartbeat every few seconds (sse-events.ts): a stream quiet for longer than this is dead. */
export const STREAM_SILENCE_MS = 8_000;

const UNREACHABLE =
  'Cannot reach Sandpit: it may have stopped, or be starting again. This page reconnects by itself once it is back.';
const UNAUTHORIZED =
  'Sandpit refused this page\'s access link. Paste the panel link (it ends in #token=…) into this tab.';

function looksLikeEnvelope(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { ok?: unknown }).ok === 'boolean';
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The web panel's transport: `POST /api/<method>` with the JSON input, and live events read from
 * `GET /api/events` (text/event-stream; `event:` is the event name, `data:` its JSON payload) over fetch,
 * so the token goes in the Authorization header and never in a URL.
 */
export function createHttpTransport(options: HttpTransportOptions): Transport {
  const base = options.baseUrl ?? '';
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  let token = options.token;
  let accepted = options.accepted === true;
  const authorization = (): string => `Bearer ${token}`;
  const listeners = new Set<TransportEventListener>();
  const linkListeners = new Set<(up: boolean) => void>();
  const refusedListeners = new Set<(problem: AccessProblem) => void>();
  const accept = (): void => {
    if (accepted) return;
    accepted = true;
    options.onAccepted?.();
  };
  const refused = (): void => {
    const problem: AccessProblem = token === '' ? 'missing' : accepted ? 'replaced' : 'invalid';
    for (const listener of refusedListeners) listener(problem);
  };
  let stream: AbortController | undefined;
  let up: boolean | undefined;
  const setLink = (next: boolean): void => {
    if (up === next) return;
    up = next;
    for (const listener of linkListeners) listener(next);
  };

  const emit = (name: string, payload: unknown): void => {
    for (const listener of listeners) {
      try {
        listener(name, payload);
      } catch {
        // One faulty listener must not stop the others or the stream.
      }
    }
  };

  const follow = async (signal: AbortSignal): Promise<void> => {
    const parser = new SseParser();
    const firstRetry = options.retryMs ?? 1_000;
    const silenceMs = options.silenceMs ?? STREAM_SILENCE_MS;
    let retry = firstRetry;
    while (!signal.aborted) {
      // One attempt: its own abort, pulled when the stream stays silent past the heartbeat.
      const attempt = new AbortController();
      const stop = (): void => attempt.abort();
      signal.addEventListener('abort', stop, { once: true });
      let watchdog: ReturnType<typeof setTimeout> | undefined;
      let refusedHere = false;
      const alive = (): void => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => {
          setLink(false);
          attempt.abort();
        }, silenceMs);
      };
      try {
        const headers: Record<string, string> = { authorization: authorization(), accept: 'text/event-stream' };
        if (parser.lastEventId) headers['last-event-id'] = parser.lastEventId;
        alive();
        const response = await doFetch(`${base}/api/events`, { headers, signal: attempt.signal, cache: 'no-store' });
        if (response.ok && response.body) {
          retry = parser.retryMs ?? firstRetry;
          accept();
          setLink(true);
          await readSse(
            response.body,
            parser,
            (message) => {
              let payload: unknown;
              try {
                payload = JSON.parse(message.data);
              } catch {
                return;
              }
              emit(message.event, payload);
            },
            alive,
          );
        } else if (response.status === 401) {
          // The server is there (the link is up) but refuses this token: say so, keep trying (a new token restarts this).
          clearTimeout(watchdog);
          refusedHere = true;
          setLink(true);
          refused();
        } else {
          setLink(false);
        }
      } catch {
        // Network error, silence or abort: reconnect below unless aborted.
      } finally {
        clearTimeout(watchdog);
        signal.removeEventListener('abort', stop);
      }
      if (!signal.aborted && !refusedHere) setLink(false);
      await delay(retry, signal);
      retry = Math.min(retry * 2, options.maxRetryMs ?? 10_000);
    }
  };

  return {
    kind: 'http',
    async invoke(method, input) {
      let response: Response;
      try {
        response = await doFetch(`${base}/api/${encodeURIComponent(method)}`, {
          method: 'POST',
          headers: { authorization: authorization(), 'content-type': 'application/json' },
          body: JSON.stringify(input ?? {}),
          cache: 'no-store',
        });
      } catch {
        // With the event stream following, the stream says whether the link is up (its heartbeat, its reconnects):
        // one request the browser cut (Chromium cuts requests with "network changed" when Docker adds an interface)
        // must not leave the panel saying the connection is lost while the stream still flows. Without a stream,
        // this request is all there is to go by.
        if (!stream) setLink(false);
        throw new SandpitError('INTERNAL', UNREACHABLE);
      }
      if (!stream) setLink(true);
      const body: unknown = await response.json().catch(() => undefined);
      if (response.status === 401) {
        refused();
        throw new SandpitError('UNAUTHORIZED', UNAUTHORIZED);
      }
      if (looksLikeEnvelope(body)) {
        if (response.status !== 403) accept();
        return body;
      }
      throw new SandpitError('INTERNAL', `Sandpit answered with HTTP ${response.status} and no result.`);
    },
    onLink(listener) {
      linkListeners.add(listener);
      return () => linkListeners.delete(listener);
    },
    onRefused(listener) {
      refusedListeners.add(listener);
      return () => refusedListeners.delete(listener);
    },
    setToken(next) {
      token = next;
      accepted = false;
      // The stream reconnects with the new token.
      if (stream) {
        stream.abort();
        const controller = new AbortController();
        stream = controller;
        void follow(controller.signal);
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      if (!stream) {
        const controller = new AbortController();
        stream = controller;
        void follow(controller.signal);
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && stream) {
          stream.abort();
          stream = undefined;
        }
      };
    },
  };
}
