import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './http-errors';

export interface BodyLimits {
  /** Largest body accepted; one byte more is a 413. */
  maxBytes: number;
  /** The whole body must arrive within this time, else 408. */
  timeoutMs: number;
}

/** How long a closed-off connection may keep sending before it is cut (so the client reads our answer first). */
const LINGER_MS = 2_000;

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, 'LIMIT_EXCEEDED', `The request body is larger than ${maxBytes} bytes.`, true);
}

/**
 * Reads a JSON body with an explicit size limit and deadline. Over the limit it stops buffering at once
 * (a declared Content-Length over it is refused before reading anything). An empty body is `undefined`.
 * Throws HttpError: 413 too large, 408 too slow, 400 unreadable or malformed JSON.
 */
export function readJsonBody(req: IncomingMessage, limits: BodyLimits): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBytes) return Promise.reject(tooLarge(limits.maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error: Error | undefined, value?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      chunks.length = 0;
      if (error) {
        req.pause();
        reject(error);
      } else resolve(value);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limits.maxBytes) finish(tooLarge(limits.maxBytes));
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      try {
        finish(undefined, parseJson(Buffer.concat(chunks, size)));
      } catch (error) {
        finish(error as Error);
      }
    };
    const onError = (error: Error): void =>
      finish(new HttpError(400, 'INVALID_INPUT', `The request body could not be read: ${error.message}`, true));
    const onClose = (): void =>
      finish(new HttpError(400, 'INVALID_INPUT', 'The request was aborted before its body arrived.', true));
    const timer = setTimeout(
      () =>
        finish(
          new HttpError(408, 'INVALID_INPUT', `The request body did not arrive within ${limits.timeoutMs} ms.`, true),
        ),
      limits.timeoutMs,
    );
    timer.unref();
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** Parses UTF-8 JSON; an empty body is `undefined`. Throws HttpError 400 for anything else. */
export function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(400, 'INVALID_INPUT', 'The request body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpError(400, 'INVALID_INPUT', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * Makes the answer the last thing on this connection: `Connection: close`, and once it is written we
 * send FIN, discard (never buffer) whatever the client is still sending for a short while, then cut.
 * Cutting at once would reset the connection and many clients would lose the answer.
 */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('connection', 'close');
  const socket = req.socket;
  // Node calls destroySoon() once a `Connection: close` answer is written; linger instead of cutting.
  socket.destroySoon = (): void => {
    socket.end();
    req.resume();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
