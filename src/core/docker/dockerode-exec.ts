import { PassThrough } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type Docker from 'dockerode';
import { readStreamInto } from '../sandbox/chunk-reader';
import { withTimeout } from '../util/with-timeout';
import type { AttachedStreams, ContainerSpec, DockerClient, ExecOptions, ExecResult } from './docker-client';

// The bodies of DockerodeClient's exec, attach and log calls: the client runs each through its
// logged, timed, error-mapped call wrapper.

/**
 * Runs a helper container to completion with the client's own calls: create → start → wait ≤ `timeoutMs`
 * (killed on timeout) → `readLogs` → remove.
 */
export async function runHelperContainer(
  client: DockerClient,
  readLogs: (id: string) => Promise<{ stdout: string; stderr: string }>,
  spec: ContainerSpec,
  timeoutMs: number,
): Promise<ExecResult> {
  const id = await client.createContainer(spec);
  try {
    await client.startContainer(id);
    let timedOut = false;
    const exitCode = await withTimeout(client.waitContainer(id), timeoutMs, 'helper container').catch(async () => {
      timedOut = true;
      await client.killContainer(id);
      return -1;
    });
    const logs = await readLogs(id);
    return { exitCode, stdout: logs.stdout, stderr: logs.stderr, timedOut };
  } finally {
    await client.removeContainer(id).catch(() => undefined);
  }
}

/** Runs `argv` in a running container and collects its output (each stream capped), killing it after `timeoutMs`. */
export async function execInContainer(docker: Docker, id: string, argv: string[], options: ExecOptions, timeoutMs: number): Promise<ExecResult> {
  const maxBytes = options.maxOutputBytes ?? 1024 * 1024;
  const container = docker.getContainer(id);
  const exec = await container.exec({
    Cmd: argv,
    User: options.user,
    Env: options.env ? Object.entries(options.env).map(([k, v]) => `${k}=${v}`) : undefined,
    WorkingDir: options.workingDir,
    AttachStdin: options.stdin !== undefined,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
  });
  const stream = await exec.start({ hijack: true, stdin: options.stdin !== undefined });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let outBytes = 0;
  let errBytes = 0;
  const collect = (into: Buffer[], which: 'out' | 'err'): PassThrough => {
    const sink = new PassThrough();
    // What is kept is also told as it comes, in whole characters (a chunk may end inside one).
    const decoder = options.onOutput ? new StringDecoder('utf8') : undefined;
    sink.on('data', (chunk: Buffer) => {
      const used = which === 'out' ? outBytes : errBytes;
      if (used >= maxBytes) return;
      const part = chunk.subarray(0, maxBytes - used);
      into.push(part);
      if (which === 'out') outBytes += part.length;
      else errBytes += part.length;
      const text = decoder?.write(part);
      if (text) options.onOutput?.(which === 'out' ? 'stdout' : 'stderr', text);
    });
    return sink;
  };
  // A reader takes stdout as it comes out of the engine's frames (paused while it asks for no more).
  const toReader = options.stdoutReader ? new PassThrough() : undefined;
  if (toReader && options.stdoutReader) readStreamInto(toReader, options.stdoutReader);
  // Cut short (aborted, before or after the program has ended): what the reader has not taken is dropped, for a reader
  // that stopped taking never would.
  const dropUntaken = (): void => void toReader?.destroy();
  if (toReader) options.signal?.addEventListener('abort', dropUntaken, { once: true });
  docker.modem.demuxStream(stream, options.stdoutTo ?? toReader ?? collect(out, 'out'), collect(err, 'err'));
  if (Buffer.isBuffer(options.stdin)) stream.end(options.stdin);
  else if (options.stdin !== undefined) {
    options.stdin.on('error', () => stream.destroy());
    options.stdin.pipe(stream);
  }
  let timedOut = false;
  let aborted = false;
  await new Promise<void>((resolve) => {
    const finish = (): void => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
      resolve();
    };
    const abort = (): void => {
      aborted = true;
      stream.destroy();
      finish();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stream.destroy();
      finish();
    }, timeoutMs);
    if (options.signal?.aborted) abort();
    options.signal?.addEventListener('abort', abort);
    stream.on('end', finish);
    stream.on('close', finish);
    stream.on('error', finish);
  });
  options.stdoutTo?.end();
  if (toReader && (aborted || timedOut || options.signal?.aborted)) {
    dropUntaken();
  } else if (toReader) {
    // every byte taken before the exec says it is done (the reader may still be taking what came last)
    const taken = new Promise<void>((resolve) => {
      toReader.once('end', resolve);
      toReader.once('close', resolve);
    });
    toReader.end();
    await withTimeout(taken, timeoutMs, 'the program\'s output being taken').catch(dropUntaken);
  }
  options.signal?.removeEventListener('abort', dropUntaken);
  if (aborted) return { exitCode: -1, stdout: '', stderr: Buffer.concat(err).toString('utf8'), timedOut: false };
  const info = await exec.inspect();
  return {
    exitCode: timedOut ? -1 : (info.ExitCode ?? -1),
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
    timedOut,
  };
}

/** Attaches to a container's stdin/stdout/stderr, with stdout and stderr split out of Docker's multiplexed stream. */
export async function attachStreams(docker: Docker, id: string): Promise<AttachedStreams> {
  // Not container.attach(): it sends its options again as a JSON body, and Podman hands the unread body of
  // the upgraded request to the container's stdin (the agent's first line would be `{"stream":true,…}`). An
  // empty body (Content-Length: 0) reaches both engines the same way; the options travel in the query.
  const stream = await new Promise<NodeJS.ReadWriteStream & { destroy(): void }>((resolve, reject) => {
    docker.modem.dial(
      {
        path: `/containers/${encodeURIComponent(id)}/attach?`,
        method: 'POST',
        isStream: true,
        hijack: true,
        openStdin: false,
        file: Buffer.alloc(0),
        statusCodes: { 101: true, 200: true, 400: 'bad parameter', 404: 'no such container', 409: 'conflict', 500: 'server error' },
        options: { stream: true, stdin: true, stdout: true, stderr: true },
      },
      (error: unknown, socket: unknown) => (error ? reject(error instanceof Error ? error : new Error(JSON.stringify(error))) : resolve(socket as NodeJS.ReadWriteStream & { destroy(): void })),
    );
  });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  docker.modem.demuxStream(stream, stdout, stderr);
  stream.on('end', () => {
    stdout.end();
    stderr.end();
  });
  stream.on('error', (error: Error) => stdout.destroy(error));
  return {
    stdin: stream as unknown as AttachedStreams['stdin'],
    stdout,
    stderr,
    close: () => stream.destroy(),
  };
}

/** A stopped container's whole log, split into stdout and stderr, each capped at `maxBytes`. */
export async function readContainerLogs(docker: Docker, id: string, maxBytes: number): Promise<{ stdout: string; stderr: string }> {
  const raw = await docker.getContainer(id).logs({ stdout: true, stderr: true, follow: false });
  return demuxBuffer(raw, maxBytes);
}

/** Splits Docker's multiplexed log format (8-byte frame headers) into stdout and stderr, each capped. */
export function demuxBuffer(raw: Buffer, maxBytes: number): { stdout: string; stderr: string } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let outBytes = 0;
  let errBytes = 0;
  let at = 0;
  while (at + 8 <= raw.length) {
    const stream = raw[at];
    const size = raw.readUInt32BE(at + 4);
    const frame = raw.subarray(at + 8, at + 8 + size);
    at += 8 + size;
    if (stream === 2) {
      if (errBytes < maxBytes) err.push(frame.subarray(0, maxBytes - errBytes));
      errBytes += frame.length;
    } else {
      if (outBytes < maxBytes) out.push(frame.subarray(0, maxBytes - outBytes));
      outBytes += frame.length;
    }
  }
  return { stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}
