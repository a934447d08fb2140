'use strict';
/*
 * Low-level file descriptor helpers. Node cannot dup2(), but open() returns the lowest free descriptor, and
 * /proc/self/fd/N opens a new description of what fd N refers to.
 */

const fs = require('fs');

function sleepMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Writes every byte of `data` to `fd` (retrying on EAGAIN). */
function writeAll(fd, data) {
  let off = 0;
  while (off < data.length) {
    try {
      off += fs.writeSync(fd, data, off, data.length - off);
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
      sleepMs(1);
    }
  }
}

/** Re-opens fd `fd` through /proc (a private copy for the channel); -1 when that is impossible (sockets). */
function reopen(fd, flags) {
  try {
    return fs.openSync(`/proc/self/fd/${fd}`, flags);
  } catch {
    return -1;
  }
}

/** Closes fd `target` and opens `file` so that it lands there (open() returns the lowest free fd). */
function placeAt(target, file, flags) {
  try {
    fs.closeSync(target);
  } catch {
    // already closed
  }
  const fd = fs.openSync(file, flags);
  if (fd !== target) {
    fs.closeSync(fd);
    throw new Error(`could not place ${file} at fd ${target} (got ${fd})`);
  }
}

/** 'pipe' for FIFOs and sockets (read and written as streams), 'other' for files and ttys, 'bad' if closed. */
function fdKind(fd) {
  try {
    const st = fs.fstatSync(fd);
    return st.isFIFO() || st.isSocket() ? 'pipe' : 'other';
  } catch {
    return 'bad';
  }
}

/** Whether `error` says this process (EMFILE) or the system (ENFILE) has no descriptor left to give. */
function noFds(error) {
  return Boolean(error) && (error.code === 'EMFILE' || error.code === 'ENFILE');
}

module.exports = { sleepMs, writeAll, reopen, placeAt, fdKind, noFds };
