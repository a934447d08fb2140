'use strict';
/*
 * Ordering marks, the main thread's side. To send `display`, `result`, `error` and `done` after the output
 * written before them, the main thread posts a numbered "mark" (carrying those messages) to the I/O thread
 * and then writes a sync marker with the same number into both FIFOs through their private write ends. The
 * I/O thread releases the mark's messages once both pumps have read past the marker (ordering.js).
 * Execution boundaries are marks too (`begin`, `end`), so output is attributed to an execution exactly.
 * Markers carry a per-process secret, so text that user code prints cannot pass for one.
 * Without FIFOs the marker goes to the I/O thread as an `out` message, after the output posted before it.
 */

const { log } = require('./log');
const { writeAll } = require('./fds');

const MARKER_PREFIX = '\u0000\u001b[sandpit-sync:';
const MARKER_SUFFIX = ']\u0000';

/** The bytes every marker of this process starts with. */
function markerPrefix(secret) {
  return Buffer.from(`${MARKER_PREFIX}${secret}:`, 'latin1');
}

function markerSuffix() {
  return Buffer.from(MARKER_SUFFIX, 'latin1');
}

function markerBytes(secret, n) {
  return Buffer.from(`${MARKER_PREFIX}${secret}:${n}${MARKER_SUFFIX}`, 'latin1');
}

/**
 * The main thread's mark(fields): fields are {begin: {id, seq, limit}}, {end: true, endId, then: [msg…]} or
 * {then: [msg…]}. `pipes` are the FIFOs of stdio-capture.js (null without FIFOs).
 */
function createMarker(worker, secret, pipes) {
  let markCount = 0;
  return function mark(fields) {
    const n = ++markCount;
    worker.postMessage({ k: 'mark', n, ...fields });
    const bytes = markerBytes(secret, n);
    for (const name of ['stdout', 'stderr']) {
      try {
        if (pipes) writeAll(pipes[name].priv, bytes);
        else worker.postMessage({ k: 'out', name, data: bytes });
      } catch (error) {
        log(`marker write failed: ${error.message}`);
        worker.postMessage({ k: 'force', n });
        return;
      }
    }
  };
}

module.exports = { markerPrefix, markerSuffix, markerBytes, createMarker };
