import { SandpitError } from '../../../shared/api/errors';
import type { Transport, TransportEventListener } from '../../../shared/api/transport';
import { SseParser, readSse } from './sse-parser';

export interface HttpTransportOptions {
  /** The bearer token from the panel link (a function when it can change, e.g. after a rotation). */
  token: string | (() => string);
  /** Origin of the Sandpit server; default: the page's own (''). */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** First reconnect delay of the event stream; doubles up to maxRetryMs. */
  retryMs?: number;
  maxRetryMs?: number;
}

const UNREACHABLE =
  'Cannot reach Sandpit. Check that "sandpit serve" (or the Sandpit app) is still running, then reload this page.';
const UNAUTHORIZED =
  'This page has no valid access token. Open the panel again with the link Sandpit printed when it started.';

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
  const { token } = options;
  const authorization = (): string => `Bearer ${typeof token === 'function' ? token() : token}`;
  const listeners = new Set<TransportEventListener>();
  let stream: AbortController | undefined;

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
    let retry = firstRetry;
    while (!signal.aborted) {
      try {
        const headers: Record<string, string> = { authorization: authorization(), accept: 'text/event-stream' };
        if (parser.lastEventId) headers['last-event-id'] = parser.lastEventId;
        const response = await doFetch(`${base}/api/events`, { headers, signal, cache: 'no-store' });
        if (response.ok && response.body) {
          retry = parser.retryMs ?? firstRetry;
          await readSse(response.body, parser, (message) => {
            let payload: unknown;
            try {
              payload = JSON.parse(message.data);
            } catch {
              return;
            }
            emit(message.event, payload);
          });
        }
      } catch {
        // Network error or abort: reconnect below unless aborted.
      }
      await delay(retry, signal);
      retry = Math.min(retry * 2, options.maxRetryMs ?? 30_000);
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
        throw new SandpitError('INTERNAL', UNREACHABLE);
      }
      const body: unknown = await response.json().catch(() => undefined);
      if (looksLikeEnvelope(body)) return body;
      if (response.status === 401) throw new SandpitError('UNAUTHORIZED', UNAUTHORIZED);
      throw new SandpitError('INTERNAL', `Sandpit answered with HTTP ${response.status} and no result.`);
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
