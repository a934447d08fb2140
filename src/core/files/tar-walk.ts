import { extract } from 'tar-stream';
import type { ExtractEvents, Header } from 'tar-stream';
import { SandpitError } from '../../shared/api/errors';

/** An entry's content as tar-stream hands it out (a streamx readable that must be consumed or destroyed). */
export type TarEntryBody = ExtractEvents['entry'][1];

/** tar-stream's header as it really is at run time: unknown typeflags give a null type. */
export type TarHeader = Omit<Header, 'type' | 'linkname'> & { type: Header['type'] | null; linkname: string | null };

/**
 * Handles one entry: resolve when its body has been consumed, reject or throw to stop the walk.
 * Check the header synchronously (throw, don't reject): a refusal then wins over whatever the
 * parser reports next (e.g. the end of a truncated archive), since Node runs nextTick callbacks
 * before promise reactions.
 */
export type TarEntryHandler = (header: TarHeader, body: TarEntryBody) => Promise<void>;

export interface WalkTarOptions {
  /** The whole walk must finish within this time, else it fails with LIMIT_EXCEEDED. */
  timeoutMs: number;
  /** Raw archive bytes accepted (headers and padding included) before it fails with LIMIT_EXCEEDED. */
  maxArchiveBytes: number;
}

function isBuffer(source: NodeJS.ReadableStream | Buffer): source is Buffer {
  return Buffer.isBuffer(source);
}

/** Stops a source we gave up on: destroyed when it can be (aborts e.g. an HTTP body), else drained. */
function stopSource(source: NodeJS.ReadableStream): void {
  const destroyable = source as NodeJS.ReadableStream & { destroy?: (error?: Error) => void };
  if (typeof destroyable.destroy === 'function') destroyable.destroy();
  else source.resume();
}

/** Errors of the tar parser itself mean a malformed archive. */
function asArchiveError(error: unknown): unknown {
  if (error instanceof SandpitError) return error;
  const message = error instanceof Error ? error.message : 'unknown error';
  return new SandpitError('INVALID_INPUT', `The tar archive is malformed: ${message}`);
}

function archiveTooBig(maxArchiveBytes: number): SandpitError {
  return new SandpitError('LIMIT_EXCEEDED', `The tar archive is larger than ${maxArchiveBytes} bytes`, {
    maxArchiveBytes,
  });
}

/**
 * Reads a tar archive entry by entry with tar-stream, one entry at a time (the next one is parsed
 * only when the handler has resolved), with backpressure on the source. On any failure (a handler
 * rejecting, a malformed archive, the raw size cap, the timeout, the source failing) the parser is
 * destroyed, the source is destroyed or drained, and the promise rejects; it never hangs past the timeout.
 */
export function walkTar(
  source: NodeJS.ReadableStream | Buffer,
  options: WalkTarOptions,
  onEntry: TarEntryHandler,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const parser = extract();
    let settled = false;

    const settle = (error?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error === undefined) {
        resolve();
        return;
      }
      parser.destroy();
      if (!isBuffer(source)) stopSource(source);
      reject(error instanceof Error ? error : new SandpitError('INTERNAL', 'Reading the tar archive failed'));
    };

    const timer = setTimeout(() => {
      settle(
        new SandpitError('LIMIT_EXCEEDED', `Reading the tar archive took longer than ${options.timeoutMs} ms`, {
          timeoutMs: options.timeoutMs,
        }),
      );
    }, options.timeoutMs);

    parser.on('entry', (header, body, next) => {
      body.on('error', () => undefined); // errors reach us through the parser or the handler
      if (settled) {
        body.destroy();
        return;
      }
      let handled: Promise<void>;
      try {
        handled = onEntry(header, body);
      } catch (error) {
        settle(error);
        return;
      }
      handled.then(
        () => {
          if (!settled) next();
        },
        (error: unknown) => settle(error),
      );
    });
    parser.on('error', (error: unknown) => settle(asArchiveError(error)));
    parser.on('finish', () => settle());

    if (isBuffer(source)) {
      if (source.length > options.maxArchiveBytes) {
        settle(archiveTooBig(options.maxArchiveBytes));
        return;
      }
      if (source.length > 0) parser.write(source);
      parser.end(null);
      return;
    }

    let received = 0;
    let ended = false;
    source.on('data', (chunk: Buffer | string) => {
      if (settled) return;
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += buffer.length;
      if (received > options.maxArchiveBytes) {
        settle(archiveTooBig(options.maxArchiveBytes));
        return;
      }
      if (!parser.write(buffer)) source.pause();
    });
    parser.on('drain', () => {
      if (!settled) source.resume();
    });
    source.on('end', () => {
      ended = true;
      if (!settled) parser.end(null);
    });
    source.on('close', () => {
      if (!ended) settle(new SandpitError('INVALID_INPUT', 'The tar stream closed before its end'));
    });
    source.on('error', (error: unknown) => settle(error));
  });
}
