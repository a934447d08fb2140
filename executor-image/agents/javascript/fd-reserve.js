'use strict';
/*
 * Descriptors kept for the agent's own work. Code that opens files until EMFILE (and keeps them) must not
 * leave the agent without the few it needs around a run: the file scan and /proc reads of the main thread
 * (executor.js), the host's file operations in the I/O thread (workspace-fs.js). Node cannot lower
 * RLIMIT_NOFILE, so each thread holds `count` descriptors of /dev/null while user code may run and frees them
 * only while it does its own (synchronous) work: `withFds(fn, need)` closes `need` of them (all by default),
 * runs fn, and opens them again (as many as it can: what fn still keeps open is one fewer). Work that holds one
 * or two descriptors at a time (a file scan, /proc reads) frees only a few: each freed descriptor costs a
 * check and a close before, and an open after. `retryWithFds(fn, need)` frees them only once fn has failed for want
 * of a descriptor, and runs it again: the executor's scans around every run, which rarely need the reserve.
 */

const fs = require('fs');
const { noFds } = require('./fds');

function createFdReserve(count) {
  const held = []; // [fd, inode of what it was opened on]
  let nullIno; // /dev/null's inode: the same for every descriptor opened on it

  function hold() {
    while (held.length < count) {
      try {
        const fd = fs.openSync('/dev/null', 'r');
        if (nullIno === undefined) nullIno = fs.fstatSync(fd).ino;
        held.push([fd, nullIno]);
      } catch {
        return; // every descriptor is in use: hold what we have
      }
    }
  }

  function release(need = held.length) {
    for (const [fd, ino] of held.splice(Math.max(held.length - need, 0))) {
      try {
        // user code may have closed it and got the number for a file of its own: that one stays open
        const st = fs.fstatSync(fd);
        if (st.ino === ino && st.isCharacterDevice()) fs.closeSync(fd);
      } catch {
        // closed already
      }
    }
  }

  let depth = 0;
  /** Runs fn() with `need` descriptors of the reserve freed (all by default; calls may nest), and returns what it returns. */
  function withFds(fn, need) {
    if (depth++ === 0) release(need);
    try {
      return fn();
    } finally {
      if (--depth === 0) hold();
    }
  }

  /**
   * Runs fn() as it is, and only when it throws for want of a descriptor (noFds) again with `need` of the reserve's
   * freed (withFds). fn must let that error out rather than take it for something else (an unreadable folder), and
   * must be safe to run twice. Most runs leave descriptors free: then this costs no check, close or open (withFds
   * costs three system calls per descriptor, ≈ 36 µs for 4 in the sandbox, at each of the two scans of every run).
   */
  function retryWithFds(fn, need) {
    if (depth > 0) return fn();
    let result;
    try {
      result = fn();
    } catch (error) {
      if (!noFds(error)) throw error;
      return withFds(fn, need);
    }
    if (held.length < count) hold(); // what it could not take back once code kept every descriptor, now there is room
    return result;
  }

  hold();
  return { withFds, retryWithFds, hold, release, size: () => held.length };
}

module.exports = { createFdReserve };
