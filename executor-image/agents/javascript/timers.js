'use strict';
/*
 * Timers of the context. Timers created while an execution runs belong to it; an interrupted execution's
 * timers are cleared (executor.js), so an abandoned cell does not keep printing.
 */

const util = require('util');

/** Returns {globals (setTimeout … clearImmediate for the context), setOwner(seq), clearOwnedBy(seq)}. */
function createTimers() {
  let currentSeq = 0; // the execution whose code runs now (0: none)
  const liveTimers = new Map(); // handle -> {seq, clear}

  function tracked(create, clear) {
    const wrapped = function (callback, ...rest) {
      if (typeof callback !== 'function') return create(callback, ...rest);
      const seq = currentSeq;
      let handle;
      const once =
        create === setInterval
          ? callback
          : function (...args) {
              liveTimers.delete(handle);
              return callback.apply(this, args);
            };
      handle = create(once, ...rest);
      if (seq) liveTimers.set(handle, { seq, clear });
      return handle;
    };
    Object.defineProperty(wrapped, 'name', { value: create.name });
    if (create[util.promisify.custom]) wrapped[util.promisify.custom] = create[util.promisify.custom];
    return wrapped;
  }

  function untracked(clear) {
    return function (handle) {
      liveTimers.delete(handle);
      return clear(handle);
    };
  }

  function clearOwnedBy(seq) {
    for (const [handle, timer] of [...liveTimers]) {
      if (timer.seq !== seq) continue;
      liveTimers.delete(handle);
      try {
        timer.clear(handle);
      } catch {
        // already gone
      }
    }
  }

  return {
    globals: {
      setTimeout: tracked(setTimeout, clearTimeout),
      setInterval: tracked(setInterval, clearInterval),
      setImmediate: tracked(setImmediate, clearImmediate),
      clearTimeout: untracked(clearTimeout),
      clearInterval: untracked(clearInterval),
      clearImmediate: untracked(clearImmediate),
    },
    setOwner: (seq) => {
      currentSeq = seq;
    },
    clearOwnedBy,
  };
}

module.exports = { createTimers };
