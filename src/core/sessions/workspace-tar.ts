import { PassThrough } from 'node:stream';
import { SandpitError } from '../../shared/api/errors';
import { normalizeRelativePath } from '../files/safe-path';
import { ReusedBuffers } from '../util/reused-buffers';
import type { ChunkReader } from '../sandbox/chunk-reader';
import { streamTar } from '../files/stream-tar';
import type { StreamFile } from '../files/stream-tar';
import { TarPushParser } from '../files/tar-push-parser';
import type { Sandbox, SandboxExecResult } from '../sandbox/sandbox-backend';
import { WORKSPACE_DIR } from '../sandbox/sandbox-paths';

export interface WorkspaceWalkCaps {
  maxFiles: number;
  /** All the files' sizes together. */
  maxBytes: number;
  maxFileBytes: number;
  /** Folders (relative to /workspace) not read at all, and named in `leftOut`: the session's shared folders. */
  leaveOut?: readonly string[];
  /**
   * Files of an earlier snapshot by path, with the stat key (inode, size, mtime, ctime) they had then: a file whose
   * key is the same now is not read again but given to `reuse` (incremental snapshots).
   */
  previous?: ReadonlyMap<string, string>;
}

export interface WorkspaceWalk {
  files: number;
  bytes: number;
  /** Entries left out and why they were (never followed or read): links, special files, files and folders the
   * sandbox user cannot read, names no path may have (a newline, a backslash…: shown escaped). */
  skipped: string[];
  /** Folders not read because the caller left them out (shared folders of the person's computer). */
  leftOut: string[];
  /** Bytes of file content read from the sandbox (unchanged files of `previous` are not read). */
  readBytes: number;
}

/**
 * Gets each regular file as it is read (so a large workspace is never held in memory at once), with its stat key
 * when known; `content` is undefined for an unchanged file of `previous` (not read: the earlier blob holds it).
 * Calls come in the archive's order, and several may be under way at once (a few files, a few MiB): the walk
 * ends once every one has. `content` is the sink's until its promise settles: then its bytes are reused for another
 * file (the sink keeps a copy of what it needs beyond that).
 */
export type WorkspaceFileSink = (path: string, content: Buffer | undefined, key: string | undefined) => Promise<void>;

/** What the workspace's files are read and written through in bulk: a program run as the sandbox user. */
export type WorkspaceExec = Pick<Sandbox, 'exec'>;

const MAX_SKIPPED_LISTED = 100;
/** Files handed to the sink and not yet taken by it: at most this many, and this many bytes (one file may be larger). */
const SINK_WINDOW_FILES = 8;
const SINK_WINDOW_BYTES = 32 * 1024 * 1024;
/** tar's records of 512 blocks (256 KiB, one read of the pipe) instead of 20: 25× fewer writes and wake-ups. */
const TAR_BLOCKING_FACTOR = 512;
/** Files smaller than this get a buffer of their own (a reused one is at least this large). */
const SMALL_FILE_BYTES = 64 * 1024;
/** A whole read or write of the workspace: a base plus time per MiB (a slow disk must not hang the queue). */
const BASE_TIMEOUT_MS = 60_000;
const PER_MIB_TIMEOUT_MS = 1_000;
/** Raw archive bytes allowed per entry on top of its content (headers, a pax record with a long name, padding). */
const ENTRY_OVERHEAD_BYTES = 16 * 1024;
/** What tar may say on stderr (its warnings name each file it could not read). */
const MAX_STDERR_BYTES = 256 * 1024;

function tooLarge(message: string): SandpitError {
  return new SandpitError('LIMIT_EXCEEDED', message);
}

/** A name as the person sees it: control characters escaped as in JSON (`a\nb`), never raw. */
function shownPath(path: string): string {
  return JSON.stringify(path.replace(/^\.\//, '')).slice(1, -1);
}

/** A path a snapshot may hold (a previous manifest is read back from disk: its paths are checked again). */
function validPath(path: string): boolean {
  try {
    normalizeRelativePath(path);
    return true;
  } catch {
    return false;
  }
}

function timeoutFor(bytes: number): number {
  return BASE_TIMEOUT_MS + Math.ceil(bytes / (1024 * 1024)) * PER_MIB_TIMEOUT_MS;
}

/** The files of `source` as they come; `ended` is told their total size once the last has come. */
async function* countedUntilEnd(source: AsyncIterable<StreamFile>, ended: (bytes: number) => void): AsyncGenerator<StreamFile> {
  let bytes = 0;
  for await (const file of source) {
    bytes += file.size;
    yield file;
  }
  ended(bytes);
}

/** The files GNU tar could not read (its warnings, names already escaped by tar): `tar: ./a\nb: Cannot open: Permission denied`. */
function unreadable(stderr: string): string[] {
  const names: string[] = [];
  for (const line of stderr.split('\n')) {
    const m = /^tar: \.\/(.+?): (?:Cannot (?:open|stat|read|savedir)|socket ignored|file changed as we read it|File removed before we read it)/.exec(line);
    if (m?.[1]) names.push(m[1]);
  }
  return names;
}

/** An entry as find lists it: its stat key (regular files only) or its type. */
interface Listed {
  path: string;
  type: string;
  key: string;
}

/**
 * Lists /workspace as the sandbox user with find (links never followed, one file system, shared folders not
 * entered): NUL-separated `type inode size mtime ctime path`. Folders find could not enter are named in `denied`.
 */
async function listWorkspaceStats(sandbox: WorkspaceExec, leaveOut: readonly string[], timeoutMs: number): Promise<{ entries: Listed[]; denied: string[] }> {
  const prune = leaveOut.flatMap((p) => ['-path', `./${p}`, '-prune', '-o']);
  const argv = ['timeout', '-s', 'KILL', String(Math.ceil(timeoutMs / 1000)), 'find', '.', '-xdev', '-mindepth', '1', ...prune, '-printf', '%y %i %s %T@ %C@ %P\\0'];
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const r = await sandbox.exec(argv, { workingDir: WORKSPACE_DIR, timeoutMs: timeoutMs + 10_000, maxOutputBytes: MAX_STDERR_BYTES, stdoutTo: out });
  if (r.timedOut || r.exitCode < 0 || r.exitCode > 1) throw new SandpitError('EXEC_FAILED', `Listing the workspace failed (find exit ${r.exitCode}): ${r.stderr.slice(0, 500)}`);
  const entries: Listed[] = [];
  for (const record of Buffer.concat(chunks).toString('utf8').split('\0')) {
    const m = /^(\S) (\d+) (\d+) (\S+) (\S+) ([\s\S]+)$/.exec(record);
    if (!m?.[1] || !m[6]) continue;
    entries.push({ type: m[1], path: m[6], key: `${m[2]}:${m[3]}:${m[4]}:${m[5]}` });
  }
  const denied: string[] = [];
  for (const line of r.stderr.split('\n')) {
    const m = /^find: ['‘]\.\/(.+?)['’]: Permission denied/.exec(line);
    if (m?.[1]) denied.push(m[1]);
  }
  return { entries, denied };
}

/**
 * Every regular file of /workspace in one tar stream, written by GNU tar run as the sandbox user (never
 * root): links are archived as links and never followed (they, special files and names no path may have
 * are left out and named in `skipped`, as are files the sandbox user cannot read), shared folders are not
 * read at all. The stream is parsed here as it comes, each entry checked against the caps before its body
 * is taken, and each file goes to `sink` while the next is read.
 */
export async function tarWorkspace(sandbox: WorkspaceExec, sink: WorkspaceFileSink, caps: WorkspaceWalkCaps): Promise<WorkspaceWalk> {
  const leaveOut = [...new Set(caps.leaveOut ?? [])].filter((p) => p !== '');
  const skipped: string[] = [];
  const skip = (shown: string): void => {
    if (skipped.length < MAX_SKIPPED_LISTED && !skipped.includes(shown)) skipped.push(shown);
  };
  const timeoutMs = timeoutFor(caps.maxBytes);
  const seconds = Math.ceil(timeoutMs / 1000);
  // Listed first (as the sandbox user): an unchanged file of the previous snapshot is not read again.
  const listed = await listWorkspaceStats(sandbox, leaveOut, timeoutMs);
  for (const name of listed.denied) skip(shownPath(name));
  const keys = new Map<string, string>();
  const toRead: string[] = [];
  let files = 0;
  let bytes = 0;
  let readBytes = 0;
  const abort = new AbortController();
  /** What stopped the walk first (a refusal, a sink's failure, the timeout): what is said. */
  let failure: Error | undefined;
  const fail = (error: unknown): void => {
    failure ??= error instanceof Error ? error : new SandpitError('INTERNAL', String(error));
    abort.abort();
  };
  const sinking: { done: Promise<void>; bytes: number }[] = [];
  let sinkingBytes = 0;
  // A file's body is copied into a buffer used again once the sink has taken the file (small files get their own).
  const buffers = new ReusedBuffers();
  const bufferFor = (size: number): Buffer => (size >= SMALL_FILE_BYTES ? buffers.take(size) : Buffer.allocUnsafe(size));
  const handToSink = (path: string, content: Buffer | undefined, key: string | undefined, buffer?: Buffer): void => {
    const size = content?.length ?? 0;
    const entry = { done: sink(path, content, key), bytes: size };
    // A sink's failure stops the walk at once.
    entry.done.catch(fail);
    sinking.push(entry);
    sinkingBytes += size;
    const taken = (): void => {
      // Taken (or failed: nothing uses it then either): its buffer serves another file.
      if (buffer && buffer.length >= SMALL_FILE_BYTES) buffers.give(buffer);
      const at = sinking.indexOf(entry);
      if (at >= 0) {
        sinking.splice(at, 1);
        sinkingBytes -= size;
      }
      onTaken();
    };
    void entry.done.then(taken, taken);
  };
  /** Whether a file of `size` bytes fits in the sink's window now. */
  const fits = (size: number): boolean => sinking.length === 0 || (sinking.length < SINK_WINDOW_FILES && sinkingBytes + size <= SINK_WINDOW_BYTES);
  /** Waits, oldest first, until a file of `size` bytes fits in the sink's window (a sink's failure is thrown here). */
  const makeRoom = async (size: number): Promise<void> => {
    while (!fits(size)) await sinking[0]!.done;
  };
  /** Files read whole, in the archive's order, waiting to fit in the sink's window. */
  const ready: { path: string; content: Buffer; buffer: Buffer }[] = [];
  const handReady = (): void => {
    while (ready.length > 0 && fits(ready[0]!.content.length) && failure === undefined) {
      const next = ready.shift()!;
      handToSink(next.path, next.content, keys.get(next.path), next.buffer);
    }
  };
  /** Every file handed to the sink taken (or, with `settled`, every call ended, failed or not: nothing still runs). */
  const allSunk = async (settled = false): Promise<void> => {
    const all = [...sinking].map((s) => s.done);
    if (settled) await Promise.allSettled(all);
    else await Promise.all(all);
  };
  let resumeReads: (() => void) | undefined;
  let paused = false;
  /** Each time the sink has taken a file: the files waiting for room go, and reads go on once nothing waits. */
  function onTaken(): void {
    handReady();
    if (paused && ready.length === 0 && fits(0) && failure === undefined) {
      paused = false;
      resumeReads?.();
    }
  }
  for (const entry of listed.entries) {
    if (entry.type === 'f') keys.set(entry.path, entry.key);
    const size = Number(entry.key.split(':')[1]);
    if (entry.type === 'f' && caps.previous?.get(entry.path) === entry.key && validPath(entry.path)) {
      if (files + 1 > caps.maxFiles) throw tooLarge(`The workspace holds more than ${caps.maxFiles.toLocaleString('en-US')} files: a snapshot takes at most that many.`);
      if (bytes + size > caps.maxBytes) throw tooLarge(`The workspace's files add up to more than ${caps.maxBytes} bytes: a snapshot takes at most that much.`);
      files += 1;
      bytes += size;
      await makeRoom(0);
      handToSink(entry.path, undefined, entry.key);
      continue;
    }
    toRead.push(`./${entry.path}`);
  }
  const argv = [
    'timeout', '-s', 'KILL', String(seconds),
    'tar', '--create', '--file=-', `--blocking-factor=${TAR_BLOCKING_FACTOR}`, `--directory=${WORKSPACE_DIR}`, '--one-file-system', '--hard-dereference',
    '--no-recursion', '--null', '--verbatim-files-from', '--files-from=-',
  ];
  const badFolders: string[] = [];
  /** The path of the entry whose body is being read. */
  let reading: { path: string; buffer: Buffer } | undefined;
  const parser = new TarPushParser({
    entry: (header) => {
      reading = undefined;
      const raw = header.name.replace(/\/+$/, '');
      // Below a folder left out for its name: left out with it (the folder alone is named).
      if (badFolders.some((folder) => raw.startsWith(`${folder}/`))) return undefined;
      let path: string;
      try {
        path = normalizeRelativePath(raw, { allowRoot: header.type === 'directory' });
      } catch {
        if (header.type === 'directory') badFolders.push(raw);
        skip(shownPath(raw));
        return undefined;
      }
      if (header.type === 'directory') return undefined;
      if (header.type !== 'file') {
        skip(shownPath(path));
        return undefined;
      }
      const size = header.size;
      if (files + 1 > caps.maxFiles) throw tooLarge(`The workspace holds more than ${caps.maxFiles.toLocaleString('en-US')} files: a snapshot takes at most that many.`);
      if (size > caps.maxFileBytes) {
        throw tooLarge(`/workspace/${path} is ${size} bytes: a snapshot takes files of up to ${caps.maxFileBytes} bytes. Delete or split it, then try again.`);
      }
      if (bytes + size > caps.maxBytes) throw tooLarge(`The workspace's files add up to more than ${caps.maxBytes} bytes: a snapshot takes at most that much.`);
      files += 1;
      bytes += size;
      readBytes += size;
      reading = { path, buffer: bufferFor(size) };
      return reading.buffer;
    },
    body: (_header, content) => {
      const { path, buffer } = reading!;
      reading = undefined;
      ready.push({ path, content, buffer });
      handReady();
    },
  }, { maxArchiveBytes: caps.maxBytes + (caps.maxFiles + 1) * ENTRY_OVERHEAD_BYTES + 1024 * 1024 });
  // The archive is parsed as it is read, each read's bytes copied at once into the file's buffer. A file read whole
  // waits in `ready` until it fits in the sink's window, and reads wait while one does (a read may finish a few
  // files more: what waits is at most one read's worth, and one file).
  const stdoutReader: ChunkReader = {
    take: (chunk) => {
      if (failure !== undefined) return false;
      try {
        parser.push(chunk);
      } catch (error) {
        fail(error);
        return false;
      }
      paused = ready.length > 0 || !fits(0);
      return !paused;
    },
    started: (resume) => {
      resumeReads = resume;
    },
  };
  const list = Buffer.from(toRead.map((p) => `${p}\0`).join(''), 'utf8');
  const timer = setTimeout(() => fail(new SandpitError('LIMIT_EXCEEDED', `Reading the tar archive took longer than ${timeoutMs} ms`, { timeoutMs })), timeoutMs);
  let result: SandboxExecResult;
  /** Throws what stopped the walk, if anything has (callbacks set it while this waits). */
  const throwIfStopped = (): void => {
    const stopped: Error | undefined = failure;
    if (stopped) throw stopped;
  };
  try {
    throwIfStopped();
    const ran = sandbox.exec(argv, { workingDir: WORKSPACE_DIR, stdin: list, timeoutMs: timeoutMs + 10_000, maxOutputBytes: MAX_STDERR_BYTES, stdoutReader, signal: abort.signal });
    result = await ran.catch((error: unknown) => {
      throwIfStopped();
      throw error;
    });
    throwIfStopped();
    // 0: all read; 1: a file changed while it was read; 2: some could not be read (named below). Beyond: tar failed,
    // and that is what is said (not the archive it left cut short).
    if (result.timedOut || result.exitCode < 0 || result.exitCode > 2) {
      throw new SandpitError('EXEC_FAILED', `Reading the workspace failed (tar exit ${result.exitCode}): ${result.stderr.slice(0, 500)}`);
    }
    parser.end();
    // the files still waiting for room go as the sink takes the ones before them
    while (ready.length > 0) {
      throwIfStopped();
      await sinking[0]!.done;
    }
    await allSunk();
    throwIfStopped();
  } catch (error) {
    // Whatever stopped it (tar's failure, a cut archive, the exec's own error) stops it for good: no file waiting
    // for room goes to the sink any more, and what the sink is taking is waited for.
    fail(error);
    await allSunk(true);
    throwIfStopped();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  for (const name of unreadable(result.stderr)) skip(name);
  return { files, bytes, skipped, leftOut: leaveOut, readBytes };
}

/**
 * Writes files into /workspace as one tar stream unpacked by GNU tar run as the sandbox user (never root:
 * it can write nothing the sandbox's own code could not). The archive is written as it is sent (stream-tar.ts):
 * each file loaded when its turn comes, a few ahead, never the whole archive in memory. Files that come one by one
 * (a fork writing a snapshot's files as it takes them) are written as they come: tar may run as long as the largest
 * archive the caps let through would take, and once the last file has come, as long as the files that came take.
 */
export async function untarWorkspace(sandbox: WorkspaceExec, files: readonly StreamFile[] | AsyncIterable<StreamFile>, caps: { maxFileBytes: number; maxBytes: number }): Promise<void> {
  if (Array.isArray(files) && files.length === 0) return;
  const abort = new AbortController();
  // A file that cannot be loaded (a damaged blob) cuts the stream: tar then fails, and the load's error is what is said.
  let loadError: Error | undefined;
  let lastFileTimer: NodeJS.Timeout | undefined;
  const list = Array.isArray(files) ? (files as readonly StreamFile[]) : undefined;
  const source = list ?? countedUntilEnd(files as AsyncIterable<StreamFile>, (bytes) => {
    const ms = timeoutFor(bytes);
    lastFileTimer = setTimeout(() => {
      loadError = new SandpitError('EXEC_TIMEOUT', `Writing the snapshot's files into /workspace did not end within ${Math.ceil(ms / 1000)} s of the last file.`);
      abort.abort();
    }, ms);
  });
  const tar = streamTar(source, { maxFileBytes: caps.maxFileBytes, maxTotalBytes: caps.maxBytes });
  const timeoutMs = timeoutFor(list ? list.reduce((sum, f) => sum + f.size, 0) : caps.maxBytes);
  tar.once('error', (error: Error) => {
    loadError = error;
    abort.abort();
  });
  const r = await sandbox
    .exec(
      ['timeout', '-s', 'KILL', String(Math.ceil(timeoutMs / 1000)), 'tar', '--extract', '--file=-', `--directory=${WORKSPACE_DIR}`, '--no-same-owner', '--no-same-permissions', '--no-overwrite-dir'],
      { workingDir: WORKSPACE_DIR, stdin: tar, timeoutMs: timeoutMs + 10_000, maxOutputBytes: MAX_STDERR_BYTES, signal: abort.signal },
    )
    .catch((error: unknown) => {
      throw loadError ?? error;
    })
    .finally(() => clearTimeout(lastFileTimer));
  if (loadError) throw loadError;
  if (r.exitCode !== 0 || r.timedOut) {
    const full = /No space left on device|Disk quota exceeded/.test(r.stderr);
    throw new SandpitError(full ? 'LIMIT_EXCEEDED' : 'EXEC_FAILED', `Writing the snapshot's files into /workspace failed${full ? ': No space left on device' : ''} (tar exit ${r.exitCode}): ${r.stderr.slice(0, 500)}`);
  }
}
