'use strict';
/*
 * process.stdout, process.stderr and process.stdin as user code sees them. stdout/stderr are synchronous
 * writers on the public write ends of the FIFOs (fds 1/2, see stdio-capture.js), so what they print is
 * ordered with raw fd writes and child output; they are never ended or destroyed (the same streams serve
 * every execution). Without FIFOs, what they print is posted to the I/O thread ({k: 'out'}). stdin is
 * always at EOF.
 */

const { Writable, Readable } = require('stream');
const { writeAll } = require('./fds');

/**
 * Makes process.stdout/stderr/stdin the agent's streams; returns {stdout, stderr, stdin}. `pipes` as returned
 * by captureStdio (null without FIFOs); `worker` is the I/O thread.
 */
function installUserStdio(pipes, worker) {
  // A class per call (one call per process): the streams hold no reference to pipes or worker that user
  // code could see.
  class FdWriter extends Writable {
    constructor(name) {
      super({ decodeStrings: true });
      this.streamName = name;
      this.fd = pipes ? pipes[name].pub : name === 'stdout' ? 1 : 2; // what a child given this stream inherits
      this.isTTY = false;
      this._isStdio = true;
      this._type = 'pipe';
    }
    _write(chunk, _encoding, callback) {
      try {
        if (pipes) writeAll(pipes[this.streamName].pub, chunk);
        else worker.postMessage({ k: 'out', name: this.streamName, data: Buffer.from(chunk) });
      } catch {
        // a closed or replaced fd: dropped (restored before the next execution)
      }
      callback();
    }
    end(chunk, encoding, callback) {
      // never ended: the same streams serve every execution
      if (typeof chunk === 'function') callback = chunk;
      else if (chunk !== undefined && chunk !== null)
        this.write(chunk, typeof encoding === 'string' ? encoding : undefined);
      if (typeof encoding === 'function') callback = encoding;
      if (typeof callback === 'function') process.nextTick(callback);
      return this;
    }
    destroy() {
      return this;
    }
    hasColors() {
      return false;
    }
    getColorDepth() {
      return 1;
    }
  }
  const stdout = new FdWriter('stdout');
  const stderr = new FdWriter('stderr');
  const stdin = new Readable({
    read() {
      this.push(null);
    },
  });
  stdin.fd = 0;
  stdin.isTTY = false;
  for (const [name, stream] of [
    ['stdout', stdout],
    ['stderr', stderr],
    ['stdin', stdin],
  ]) {
    Object.defineProperty(process, name, { configurable: true, enumerable: true, get: () => stream });
  }
  return { stdout, stderr, stdin };
}

module.exports = { installUserStdio };
