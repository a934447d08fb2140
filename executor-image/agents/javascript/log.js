'use strict';
/*
 * Diagnostics about the agent itself. They go to a private copy of the original stderr (logFd), never to the
 * channel and never to user output; each thread sets its own logFd (the I/O thread gets the main thread's).
 */

const fs = require('fs');

let logFd = -1;

/** Where diagnostics go from now on (-1: nowhere). */
function setLogFd(fd) {
  logFd = fd;
}

/** A diagnostic about the agent itself, on the original stderr (never the channel). */
function log(text) {
  if (logFd < 0) return;
  try {
    fs.writeSync(logFd, `sandpit-agent: ${text}\n`);
  } catch {
    // nowhere to report
  }
}

module.exports = { log, setLogFd };
