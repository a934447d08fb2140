import { format } from 'node:util';
import { Writable } from 'node:stream';

/**
 * For `sandpit mcp`, where stdout is the JSON-RPC channel: from now on console.* and any other write to
 * process.stdout go to stderr, and the returned stream is the only way left to the real stdout.
 */
export function protectStdout(): Writable {
  const realWrite = process.stdout.write.bind(process.stdout) as (
    chunk: string | Uint8Array,
    callback: (error?: Error | null) => void,
  ) => boolean;
  const toStderr = (...args: unknown[]): void => {
    process.stderr.write(`${format(...args)}\n`);
  };
  Object.assign(console, {
    log: toStderr,
    info: toStderr,
    debug: toStderr,
    trace: toStderr,
    dir: toStderr,
    table: toStderr,
  });
  process.stdout.write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    const callback = rest.find((arg): arg is (error?: Error | null) => void => typeof arg === 'function');
    const encoding: BufferEncoding | undefined = typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : undefined;
    return callback
      ? process.stderr.write(chunk, encoding ?? 'utf8', callback)
      : process.stderr.write(chunk, encoding ?? 'utf8');
  };
  // A client that went away makes writes fail (EPIPE): the returned stream reports that to its user, and the
  // same error emitted on process.stdout itself must not crash the process.
  process.stdout.on('error', () => undefined);
  const guarded = new Writable({
    write(chunk: Buffer, _encoding, callback): void {
      realWrite(chunk, (error) => callback(error ?? null));
    },
  });
  // Its user (the stdio transport) listens while it runs; a failure after that must not crash the shutdown.
  guarded.on('error', () => undefined);
  return guarded;
}
