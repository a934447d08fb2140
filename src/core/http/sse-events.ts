import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventBus } from '../events/event-bus';
import { BASE_HEADERS } from './http-errors';

export interface SseOptions {
  /** A comment line this often keeps proxies and idle timers from closing the stream. */
  heartbeatMs?: number;
  /** A client that lets this much pile up unread is dropped (it reconnects and reloads state). */
  maxBufferedBytes?: number;
}

/** Often enough that the panel knows within a few seconds when Sandpit is gone (it waits 8 s of silence). */
export const SSE_HEARTBEAT_MS = 2_500;
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/** One server-sent event: `event: <name>` and its JSON payload (JSON has no raw newlines, so one data line). */
export function formatSse(name: string, payload: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/**
 * Streams every bus event to the response as text/event-stream until the client goes away; resolves then.
 * Unsubscribes and stops the heartbeat on close; drops a client that stops reading.
 */
export function streamBusEvents(
  bus: EventBus,
  req: IncomingMessage,
  res: ServerResponse,
  options: SseOptions = {},
): Promise<void> {
  const maxBuffered = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  res.writeHead(200, {
    ...BASE_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.socket?.setNoDelay(true);
  res.write(': connected\n\n');
  return new Promise((resolve) => {
    const write = (text: string): void => {
      if (res.writableEnded || res.destroyed) return;
      if (res.writableLength > maxBuffered) {
        res.destroy();
        return;
      }
      res.write(text);
    };
    const unsubscribe = bus.onAny((name, payload) => write(formatSse(name, payload)));
    const heartbeat = setInterval(() => write(': heartbeat\n\n'), options.heartbeatMs ?? SSE_HEARTBEAT_MS);
    heartbeat.unref();
    const close = (): void => {
      unsubscribe();
      clearInterval(heartbeat);
      resolve();
    };
    res.once('close', close);
    req.once('error', () => res.destroy());
  });
}
