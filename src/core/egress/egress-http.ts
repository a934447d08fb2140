import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** Headers that describe one hop, never forwarded (RFC 9110 §7.6.1), plus the proxy's own credentials. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Drops hop-by-hop headers, those named in Connection, and any name in `alsoDrop`, from a flat
 * rawHeaders list ([name, value, name, value, ...]); returns the same flat shape.
 */
export function stripHopByHop(rawHeaders: readonly string[], alsoDrop: readonly string[] = []): string[] {
  const drop = new Set([...HOP_BY_HOP, ...alsoDrop]);
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() !== 'connection') continue;
    for (const token of rawHeaders[i + 1]!.split(',')) drop.add(token.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (!drop.has(rawHeaders[i]!.toLowerCase())) kept.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  }
  return kept;
}

/** A complete HTTP/1.1 response with a short text body, for writing onto a raw socket. */
export function rawResponse(status: number, text: string, extraHeaders: Record<string, string> = {}): string {
  const body = `${text}\n`;
  const headers = {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
    ...extraHeaders,
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n${lines.join('')}\r\n${body}`;
}

/**
 * Ends the socket (after writing `response`, if any) and lets the peer read everything: keeps
 * draining input (unread bytes would turn the close into a reset that discards the answer) and
 * destroys it after `graceMs` at most, or as soon as the peer has ended too.
 */
export function endGracefully(socket: Duplex, response?: string, graceMs = 5_000): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), graceMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.resume();
  if (socket.writableEnded) return;
  if (response === undefined) socket.end();
  else socket.end(response);
}
