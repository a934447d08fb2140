import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, Socket } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { SOCKET_READ_BYTES, readSocketInto, readStreamInto } from './chunk-reader';
import { pausingReader } from '../../test-support/pausing-reader';
import { withTimeout } from '../util/with-timeout';

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.reverse()) step();
  cleanup = [];
});

/** A unix socket server in a folder of its own; resolves with the first connection it accepts, paused. */
async function listening(): Promise<{ path: string; accepted: Promise<Socket>; server: Server }> {
  const folder = mkdtempSync(join(tmpdir(), 'sandpit-chunk-reader-'));
  const path = join(folder, 's.sock');
  const server = createServer({ allowHalfOpen: true, pauseOnConnect: true });
  cleanup.push(() => {
    server.close();
    rmSync(folder, { recursive: true, force: true });
  });
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, accepted, server };
}

function ended(socket: Socket): Promise<void> {
  return withTimeout(new Promise<void>((resolve) => {
    socket.once('end', resolve);
    socket.once('close', () => resolve());
  }), 20_000, 'the end of the socket');
}

describe('readSocketInto', () => {
  it('gives an accepted socket\'s bytes, in order and whole, read into one buffer again and again, pausing as asked', async () => {
    const { path, accepted } = await listening();
    const sent = randomBytes(12 * 1024 * 1024 + 13);
    const client = createConnection(path);
    cleanup.push(() => client.destroy());
    const back: Buffer[] = [];
    client.on('data', (c: Buffer) => back.push(c));
    // written in pieces of odd sizes, as a program writes
    for (let at = 0; at < sent.length; at += 99_991) client.write(sent.subarray(at, at + 99_991));
    client.end();
    const socket = await accepted;
    const reader = pausingReader();
    const reading = readSocketInto(socket, reader);
    await ended(reading);
    expect(reader.bytes().equals(sent)).toBe(true);
    expect(reader.pauses).toBeGreaterThan(3);
    // every read (after what was read before the move) landed in the same memory: no new buffer per read
    expect(reader.takes).toBeGreaterThan(sent.length / SOCKET_READ_BYTES);
    expect(reader.views.size).toBeLessThanOrEqual(2);
    // the socket it returns still writes (half-open): the other side gets the answer
    reading.end('answered');
    await withTimeout(new Promise<void>((resolve) => client.once('end', resolve)), 20_000, 'the answer');
    expect(Buffer.concat(back).toString()).toBe('answered');
  });

  it('gives first what the socket had read before (a header read the usual way, the rest put back)', async () => {
    const { path, accepted } = await listening();
    const client = createConnection(path);
    cleanup.push(() => client.destroy());
    client.write('token-line\nfirst bytes|');
    const socket = await accepted;
    // read as acceptAgent reads the token line: a chunk, the rest put back, the socket paused
    const head = await new Promise<Buffer>((resolve) => {
      socket.once('data', (chunk: Buffer) => {
        socket.pause();
        resolve(chunk);
      });
      socket.resume();
    });
    const nl = head.indexOf(10);
    socket.unshift(head.subarray(nl + 1));
    const reader = pausingReader();
    const reading = readSocketInto(socket, reader);
    client.end('later bytes');
    await ended(reading);
    expect(reader.bytes().toString()).toBe('first bytes|later bytes');
  });

  it('takes a socket whose other side has already ended, and says its end', async () => {
    const { path, accepted } = await listening();
    const client = createConnection(path);
    cleanup.push(() => client.destroy());
    client.end('all of it, at once');
    const socket = await accepted;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reader = pausingReader();
    await ended(readSocketInto(socket, reader));
    expect(reader.bytes().toString()).toBe('all of it, at once');
  });

  it('falls back to the socket\'s own chunks where its handle cannot move (a socket with none)', async () => {
    const socket = new Socket();
    socket.push(Buffer.from('pushed '));
    socket.push(Buffer.from('by hand'));
    socket.push(null);
    const reader = pausingReader();
    const reading = readSocketInto(socket, reader);
    expect(reading).toBe(socket);
    await ended(reading);
    expect(reader.bytes().toString()).toBe('pushed by hand');
    socket.destroy();
  });
});

describe('readStreamInto', () => {
  it('feeds a stream\'s chunks and pauses it while the reader asks for no more', async () => {
    const source = new PassThrough();
    const reader = pausingReader();
    readStreamInto(source, reader);
    const sent = randomBytes(1024 * 1024);
    for (let at = 0; at < sent.length; at += 10_000) source.write(sent.subarray(at, at + 10_000));
    source.end();
    await withTimeout(new Promise<void>((resolve) => source.once('end', resolve)), 20_000, 'the end of the stream');
    expect(reader.bytes().equals(sent)).toBe(true);
    expect(reader.pauses).toBeGreaterThan(10);
  });
});
