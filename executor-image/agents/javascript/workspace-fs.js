'use strict';
/*
 * Workspace files for the host, served in the I/O thread (io-thread.js): `fs` requests (read, list, write,
 * usage) and `reap` (see ../PROTOCOL.md). The host reads, lists and writes workspace files through the agent
 * so that it is done with the sandbox user's rights, never through a link that sandboxed code planted.
 *
 * Confinement. The workspace root is opened once per operation and every component of a path is opened from
 * the descriptor of the directory before it, with O_NOFOLLOW (and O_DIRECTORY for directories): a symlink
 * anywhere in the path is refused (LINK), never resolved, even when it points inside the workspace. Node has
 * no openat(), so a component is opened as /proc/self/fd/<fd of its directory>/<name>: the kernel follows the
 * magic link of the descriptor (an intermediate component) to that very directory, wherever it is by now,
 * and O_NOFOLLOW applies to <name> alone. Nothing here resolves a path and then opens it (no realpath).
 * Files are read with O_NONBLOCK (a FIFO never blocks the thread) and only once fstat says they are regular.
 *
 * Reads, listings and usage walks are generators run in slices of a few milliseconds, so the thread keeps
 * reading requests and forwarding output meanwhile; a read sends its next chunk only when the channel is not
 * congested. The chunks of one write are handled as they arrive, in order.
 */

const fs = require('fs');
const { log } = require('./log');
const { killStrays } = require('./processes');
const { createFdReserve } = require('./fd-reserve');
const { runPipe, PipeRefused } = require('./pipe-program');
const { FsError, dirPath, at, closeQuietly, pathParts, linkError, errnoError, componentError, kindOf } = require('./workspace-paths');

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_TRUNC, O_APPEND, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } =
  fs.constants;

const CHUNK = 1 << 20; // raw bytes per fs-data message
const DEFAULT_MAX_BYTES = 100 << 20; // a read without a valid maxBytes
const MAX_LIST = 5000; // entries in one fs-list
const MAX_NAMES = 200000; // names looked at when listing one directory
const MAX_USAGE_ENTRIES = 200000; // entries counted for fileBytes
const MAX_DEPTH = 256; // directory levels counted for fileBytes
const MAX_WRITES = 64; // writes in progress (first chunk received, last not yet)
const SLICE_MS = 10; // a long operation gives the thread back after this long
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW; // libuv adds O_CLOEXEC to every open
const READ_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const WRITE_FLAGS = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const DRAIN = Symbol('drain'); // yielded by a generator that has just sent a chunk

/**
 * Returns {handle(msg)} for `fs` and `reap` requests. `send(msg)` sends on the channel, `busy()` says it is
 * congested and `whenDrained(resume)` calls back once it is not; `root` is the workspace; `mayKillStrays`
 * says whether `reap` may kill (processes.js straysMayBeKilled(), decided at start-up).
 */
function createWorkspaceFs({ root, send, busy, whenDrained, mayKillStrays, pipeFolder }) {
  const writes = new Map(); // id -> {fd, path, start (size when opened)} of a write whose last chunk has not come yet
  const failed = new Set(); // ids of failed writes whose later chunks are ignored (until `last`), oldest first
  let procChecked = false;
  // The host's file operations get descriptors even when user code took all the others.
  const reserve = createFdReserve(16);

  function fail(id, error) {
    if (!(error instanceof FsError)) {
      log(`fs request failed: ${error && error.stack}`);
      error = new FsError('IO', `Internal error: ${error && error.message}`);
    }
    send({ type: 'fs-error', id, code: error.fsCode, message: error.message });
  }

  /** A descriptor of the workspace root (the configured root itself is trusted: it may be a link). */
  function openRoot() {
    let fd;
    try {
      fd = fs.openSync(root, O_RDONLY | O_DIRECTORY);
    } catch (error) {
      throw errnoError(error, 'the workspace');
    }
    if (!procChecked) {
      // Everything below goes through /proc/self/fd: make sure it leads to the descriptor's directory.
      try {
        const a = fs.fstatSync(fd);
        const b = fs.statSync(dirPath(fd));
        procChecked = a.ino === b.ino && a.dev === b.dev;
      } catch {
        procChecked = false;
      }
      if (!procChecked) {
        closeQuietly(fd);
        throw new FsError('IO', 'File operations need /proc/self/fd, which is not available.');
      }
    }
    return fd;
  }

  function makeDir(dirFd, name, shown) {
    let made = false;
    try {
      fs.mkdirSync(at(dirFd, name), 0o755);
      made = true;
    } catch (error) {
      if (error.code !== 'EEXIST') throw componentError(error, dirFd, name, shown); // EEXIST: made meanwhile, or a link (refused below)
    }
    let fd;
    try {
      fd = fs.openSync(at(dirFd, name), DIR_FLAGS);
    } catch (error) {
      throw componentError(error, dirFd, name, shown);
    }
    if (made) {
      try {
        fs.fchmodSync(fd, 0o755); // whatever umask user code set
      } catch {
        // keep what mkdir gave
      }
    }
    return fd;
  }

  /** A descriptor of the directory `parts`, walked from the root, never through a link; `create` makes missing ones. */
  function openDirs(parts, create) {
    let fd = openRoot();
    try {
      for (let i = 0; i < parts.length; i++) {
        const shown = parts.slice(0, i + 1).join('/');
        let sub;
        try {
          sub = fs.openSync(at(fd, parts[i]), DIR_FLAGS);
        } catch (error) {
          if (!create || error.code !== 'ENOENT') throw componentError(error, fd, parts[i], shown);
          sub = makeDir(fd, parts[i], shown);
        }
        fs.closeSync(fd);
        fd = sub;
      }
    } catch (error) {
      closeQuietly(fd);
      throw error;
    }
    return fd;
  }

  // -- read --------------------------------------------------------------------------------------------
  function* read(id, msg) {
    const parts = pathParts(msg.path, false);
    let limit = msg.maxBytes;
    if (!Number.isSafeInteger(limit) || limit < 0) limit = DEFAULT_MAX_BYTES;
    const path = parts.join('/');
    const dirFd = openDirs(parts.slice(0, -1), false);
    let fd;
    try {
      fd = fs.openSync(at(dirFd, parts.at(-1)), READ_FLAGS);
    } catch (error) {
      throw componentError(error, dirFd, parts.at(-1), path);
    } finally {
      closeQuietly(dirFd);
    }
    try {
      const st = fs.fstatSync(fd);
      if (st.isSymbolicLink()) throw linkError(path);
      if (!st.isFile())
        throw new FsError(
          'NOT_A_FILE',
          `"${path}" is ${st.isDirectory() ? 'a directory' : 'a special file'}, not a regular file.`,
        );
      if (st.size > limit)
        throw new FsError('TOO_LARGE', `"${path}" is ${st.size} bytes, more than the limit of ${limit} bytes.`);
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, limit + 1));
      let total = 0;
      for (;;) {
        // at most limit + 1 bytes in all: a file that grew past the limit shows
        const n = fs.readSync(fd, buf, 0, Math.min(buf.length, limit + 1 - total), null);
        if (n === 0) break;
        total += n;
        if (total > limit)
          throw new FsError('TOO_LARGE', `"${path}" grew to more than the limit of ${limit} bytes while it was read.`);
        send({ type: 'fs-data', id, data: buf.toString('base64', 0, n) });
        yield DRAIN;
      }
      send({ type: 'fs-done', id, size: total });
    } catch (error) {
      throw errnoError(error, path);
    } finally {
      closeQuietly(fd);
    }
  }

  // -- write (synchronous, chunk by chunk) ----------------------------------------------------------------
  /** Opens (creates) the file `parts` for writing: parents made as needed, truncated unless `append`. */
  function create(parts, append) {
    const path = parts.join('/');
    const dirFd = openDirs(parts.slice(0, -1), true);
    const name = parts.at(-1);
    let fd;
    try {
      for (let attempt = 0; fd === undefined; attempt++) {
        if (attempt === 5) throw new FsError('IO', `"${path}" kept appearing and disappearing.`);
        try {
          // O_EXCL first: a file made here gets exactly 0644 whatever the umask
          fd = fs.openSync(at(dirFd, name), WRITE_FLAGS | O_CREAT | O_EXCL | (append ? O_APPEND : 0), 0o644);
          try {
            fs.fchmodSync(fd, 0o644);
          } catch {
            // keep what open gave
          }
          break;
        } catch (error) {
          if (error.code !== 'EEXIST') throw componentError(error, dirFd, name, path);
        }
        try {
          fd = fs.openSync(at(dirFd, name), WRITE_FLAGS | (append ? O_APPEND : O_TRUNC));
        } catch (error) {
          if (error.code !== 'ENOENT') throw componentError(error, dirFd, name, path); // ENOENT: removed meanwhile
        }
      }
    } finally {
      closeQuietly(dirFd);
    }
    try {
      if (!fs.fstatSync(fd).isFile()) throw new FsError('NOT_A_FILE', `"${path}" exists and is not a regular file.`);
    } catch (error) {
      closeQuietly(fd);
      throw errnoError(error, path);
    }
    return fd;
  }

  function write(id, msg) {
    const last = msg.last === true;
    if (failed.has(id)) {
      // a chunk of a write that already failed (and was answered)
      if (last) failed.delete(id);
      return;
    }
    let state = writes.get(id);
    try {
      const data = msg.data === undefined ? '' : msg.data;
      if (typeof data !== 'string' || data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data))
        throw new FsError('IO', "The request's data is not valid base64.");
      const bytes = Buffer.from(data, 'base64');
      if (!state) {
        if (writes.size >= MAX_WRITES) throw new FsError('IO', 'Too many writes in progress.');
        const parts = pathParts(msg.path, false);
        const fd = create(parts, msg.append === true);
        let start;
        try {
          start = fs.fstatSync(fd).size;
        } catch {
          start = undefined;
        }
        state = { fd, path: parts.join('/'), start };
        writes.set(id, state);
      }
      let size;
      try {
        for (let off = 0; off < bytes.length;) off += fs.writeSync(state.fd, bytes, off, bytes.length - off);
        if (last) size = fs.fstatSync(state.fd).size;
      } catch (error) {
        throw errnoError(error, state.path);
      }
      if (last) {
        writes.delete(id);
        fs.closeSync(state.fd);
        send({ type: 'fs-done', id, size });
      }
    } catch (error) {
      if (state) {
        // the file goes back to its size when opened: a full disk is not left full
        writes.delete(id);
        try {
          if (state.start !== undefined) fs.ftruncateSync(state.fd, state.start);
        } catch {
          // leave it
        }
        closeQuietly(state.fd);
      }
      if (!last) {
        failed.add(id);
        if (failed.size > 1000) failed.delete(failed.values().next().value);
      }
      throw error;
    }
  }

  // -- list ---------------------------------------------------------------------------------------------
  function* list(id, msg) {
    const parts = pathParts(msg.path === undefined ? '' : msg.path, true);
    const shown = parts.join('/') || 'the workspace';
    const fd = openDirs(parts, false);
    try {
      const names = [];
      let truncated = false;
      const dir = fs.opendirSync(dirPath(fd));
      try {
        for (let entry = dir.readSync(); entry; entry = dir.readSync()) {
          if (names.length >= MAX_NAMES) {
            truncated = true;
            break;
          }
          names.push(entry.name);
          if (names.length % 2000 === 0) yield;
        }
      } finally {
        dir.closeSync();
      }
      names.sort();
      truncated = truncated || names.length > MAX_LIST;
      const entries = [];
      for (const name of names.slice(0, MAX_LIST)) {
        let st;
        try {
          st = fs.lstatSync(at(fd, name));
        } catch {
          continue; // removed meanwhile
        }
        entries.push({ name, type: kindOf(st), size: st.size, mtime: st.mtimeMs / 1000 });
        if (entries.length % 1000 === 0) yield;
      }
      send({ type: 'fs-list', id, entries, truncated });
    } catch (error) {
      throw errnoError(error, shown);
    } finally {
      closeQuietly(fd);
    }
  }

  // -- usage --------------------------------------------------------------------------------------------
  /**
   * The total size of the regular files under the root, walked without following links (descriptors kept
   * open down the current path only), counting at most MAX_USAGE_ENTRIES entries. Yields now and then.
   */
  function* fileBytes(rootFd) {
    let total = 0;
    let seen = 0;
    const stack = []; // {fd, subdirs: names still to visit}
    let fd = fs.openSync(dirPath(rootFd), O_RDONLY | O_DIRECTORY); // a copy of the root's (not O_NOFOLLOW: a magic link)
    try {
      for (;;) {
        if (fd !== undefined) {
          const subdirs = [];
          stack.push({ fd, subdirs });
          let dir;
          try {
            dir = fs.opendirSync(dirPath(fd));
          } catch {
            dir = undefined;
          }
          fd = undefined;
          try {
            for (let entry = dir && dir.readSync(); entry; entry = dir.readSync()) {
              if (++seen > MAX_USAGE_ENTRIES) return total;
              if (seen % 500 === 0) yield;
              if (entry.isDirectory()) subdirs.push(entry.name);
              else if (entry.isFile()) {
                try {
                  const st = fs.lstatSync(at(stack.at(-1).fd, entry.name));
                  if (st.isFile()) total += st.size;
                } catch {
                  // gone
                }
              }
            }
          } catch {
            // unreadable: count what was read
          } finally {
            if (dir) dir.closeSync();
          }
        }
        const top = stack.at(-1);
        if (!top) return total;
        if (!top.subdirs.length || stack.length >= MAX_DEPTH) {
          fs.closeSync(top.fd);
          stack.pop();
          continue;
        }
        try {
          fd = fs.openSync(at(top.fd, top.subdirs.pop()), DIR_FLAGS);
        } catch {
          fd = undefined; // gone, or replaced by a link
        }
      }
    } finally {
      for (const { fd: open } of stack) closeQuietly(open);
    }
  }

  function* usage(id) {
    const fd = openRoot();
    try {
      const st = fs.statfsSync(dirPath(fd));
      const files = yield* fileBytes(fd);
      send({
        type: 'fs-usage',
        id,
        usedBytes: (st.blocks - st.bfree) * st.bsize,
        totalBytes: st.blocks * st.bsize,
        freeBytes: st.bavail * st.bsize,
        fileBytes: files,
      });
    } catch (error) {
      throw errnoError(error, 'the workspace');
    } finally {
      closeQuietly(fd);
    }
  }

  /** Runs a generator in slices of SLICE_MS, waiting for the channel when it is congested after a chunk. */
  function run(id, job) {
    const step = () => reserve.withFds(() => {
      const deadline = Date.now() + SLICE_MS;
      try {
        for (;;) {
          const { done, value } = job.next();
          if (done) return;
          if (value === DRAIN && busy()) {
            whenDrained(() => setImmediate(step));
            return;
          }
          if (Date.now() >= deadline) {
            setImmediate(step);
            return;
          }
        }
      } catch (error) {
        fail(id, error);
      }
    });
    step();
  }

  /** Runs a program of the image for the host, its bytes through the host's socket (pipe-program.js). */
  function pipe(id, msg) {
    const maxStderr = Number.isInteger(msg.maxStderr) && msg.maxStderr >= 0 && msg.maxStderr <= CHUNK ? msg.maxStderr : 65536;
    runPipe(pipeFolder, root, msg, maxStderr, (error, outcome) => {
      if (error) fail(id, new FsError('IO', error instanceof PipeRefused ? error.message : `The program could not be run: ${error.message}.`));
      else send({ type: 'fs-exit', id, exitCode: outcome.exitCode, stderr: outcome.stderr });
    });
  }

  /** One `fs` or `reap` request (parsed by protocol.js: an object with an id). */
  function handle(msg) {
    reserve.withFds(() => serve(msg));
  }

  function serve(msg) {
    const { id } = msg;
    try {
      if (msg.type === 'reap') {
        send({ type: 'reaped', id, killed: mayKillStrays ? killStrays() : 0 });
      } else if (msg.op === 'write') write(id, msg);
      else if (msg.op === 'read') run(id, read(id, msg));
      else if (msg.op === 'list') run(id, list(id, msg));
      else if (msg.op === 'usage') run(id, usage(id));
      else if (msg.op === 'pipe') pipe(id, msg);
      else throw new FsError('IO', `Unknown fs operation ${JSON.stringify(msg.op)}.`);
    } catch (error) {
      fail(id, error);
    }
  }

  return { handle };
}

module.exports = { createWorkspaceFs, pathParts };
