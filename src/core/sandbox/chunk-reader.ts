import { Socket } from 'node:net';
import type { Readable } from 'node:stream';

/**
 * Takes a byte stream read by read, using each read's bytes during the call only (what it keeps, it copies): the
 * reader of a socket can then read into one buffer again and again, with no new buffer per read for the garbage
 * collector (a snapshot's 100 MiB came as 1,600 such buffers, and collecting them took more CPU than the rest).
 */
export interface ChunkReader {
  /**
   * The bytes just read, valid only until this call returns. False asks for no more reads until `resume` (given to
   * `started`) is called; a read already under way may still come.
   */
  take(bytes: Buffer): boolean;
  /** Told once, as reads start, how to ask for reads again. */
  started(resume: () => void): void;
}

/** What one read of a socket read by `readSocketInto` takes at most. */
export const SOCKET_READ_BYTES = 256 * 1024;

/** Feeds a stream's chunks to `reader`, pausing the stream while the reader asks for no more. */
export function readStreamInto(source: Readable, reader: ChunkReader): void {
  reader.started(() => source.resume());
  source.on('data', (chunk: Buffer) => {
    if (!reader.take(chunk)) source.pause();
  });
}

/**
 * Reads a connected socket (paused, as an accepting server hands it over) into one buffer of `SOCKET_READ_BYTES`
 * again and again, each read given to `reader`; returns the socket to write to and to wait on from now on (its
 * `end` and `close`). What the socket had already read comes first. Node lets only a socket it connects read into
 * a caller's buffer (`onread`), so the accepted socket's handle moves into a socket made with it; where that cannot
 * be done, the socket's own chunks are fed to the reader as they come.
 */
export function readSocketInto(socket: Socket, reader: ChunkReader): Socket {
  socket.pause();
  const early: Buffer[] = [];
  for (let chunk = socket.read() as Buffer | null; chunk !== null; chunk = socket.read() as Buffer | null) early.push(chunk);
  const handle = (socket as unknown as { _handle?: unknown })._handle;
  let reading = socket;
  if (typeof handle === 'object' && handle !== null && !socket.readableEnded && !socket.destroyed) {
    const buffer = Buffer.allocUnsafeSlow(SOCKET_READ_BYTES);
    socket.removeAllListeners();
    (socket as unknown as { _handle: unknown })._handle = null;
    reading = new Socket({
      handle,
      allowHalfOpen: true,
      pauseOnCreate: true,
      onread: { buffer, callback: (n: number) => reader.take(buffer.subarray(0, n)) },
    } as ConstructorParameters<typeof Socket>[0]);
  } else {
    // paused: adding the listener does not start the flow
    socket.on('data', (chunk: Buffer) => {
      if (!reader.take(chunk)) socket.pause();
    });
  }
  const resume = (): void => void reading.resume();
  reader.started(resume);
  let more = true;
  for (const chunk of early) more = reader.take(chunk) && more;
  if (more) resume();
  return reading;
}
