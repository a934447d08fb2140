'use strict';
/*
 * Ordering marks, the I/O thread's side (the main thread's side and the marker format are in marks.js).
 * Each pump's bytes are scanned for sync markers; a marker is cut out and the pump crosses its mark. A pump
 * stops at marker n until every pump has read up to it and the mark's messages are sent, so output written
 * after a mark never overtakes them, and output written before it is always sent first. Marks are released
 * in order. A mark whose markers do not arrive within MARK_TIMEOUT_MS is forced (released without them).
 */

const { log } = require('./log');
const { MARK_TIMEOUT_MS } = require('./limits');
const { markerPrefix, markerSuffix } = require('./marks');

/** Returns {feed(pump, chunk), add(markMessage), force(n)}; `busy()` says the channel is congested. */
function createOrdering({ pumps, secret, send, busy }) {
  const prefix = markerPrefix(secret);
  const suffix = markerSuffix();
  const marks = new Map(); // n -> {begin, end, then, dropped, timer}
  let released = 0; // every mark up to this one has been released

  /** The longest tail of `buf` that is a proper prefix of `prefix` (a marker split across reads). */
  function partialTail(buf) {
    const max = Math.min(buf.length, prefix.length - 1);
    for (let k = max; k > 0; k--) {
      if (buf.subarray(buf.length - k).equals(prefix.subarray(0, k))) return k;
    }
    return 0;
  }

  /**
   * Output of one pump: markers are cut out and applied. A pump stops at marker n until every pump has
   * read up to it and the mark's messages are sent, so output after a mark never overtakes them.
   */
  function feed(p, chunk) {
    if (p.blocked) {
      p.blocked.rest = Buffer.concat([p.blocked.rest, chunk]);
      return;
    }
    let buf = p.held.length ? Buffer.concat([p.held, chunk]) : chunk;
    p.held = Buffer.alloc(0);
    for (;;) {
      const at = buf.indexOf(prefix);
      if (at < 0) {
        const keep = partialTail(buf);
        p.forward(buf.subarray(0, buf.length - keep));
        if (keep) p.held = Buffer.from(buf.subarray(buf.length - keep));
        return;
      }
      const close = buf.indexOf(suffix, at + prefix.length);
      if (close < 0) {
        p.forward(buf.subarray(0, at));
        p.held = Buffer.from(buf.subarray(at));
        if (p.held.length > prefix.length + 32) {
          // not a marker after all
          p.forward(p.held);
          p.held = Buffer.alloc(0);
        }
        return;
      }
      const digits = buf.subarray(at + prefix.length, close).toString('latin1');
      if (!/^\d{1,15}$/.test(digits)) {
        p.forward(buf.subarray(0, at + 1));
        buf = buf.subarray(at + 1);
        continue;
      }
      p.forward(buf.subarray(0, at));
      const n = Number(digits);
      buf = buf.subarray(close + suffix.length);
      if (n <= p.seen) continue; // a mark that was forced already
      const mark = marks.get(n);
      if (mark) {
        p.applyMark(n, mark);
        release();
      }
      if (!mark || released < n) {
        p.blocked = { n, applied: Boolean(mark), rest: Buffer.from(buf) };
        if (p.source && p.source.pause) p.source.pause();
        return;
      }
    }
  }

  /** Lets blocked pumps go on when their mark has arrived / been released. */
  function wake() {
    let again = true;
    while (again) {
      again = false;
      for (const p of pumps) {
        const b = p.blocked;
        if (!b) continue;
        if (!b.applied && marks.has(b.n)) {
          b.applied = true;
          p.applyMark(b.n, marks.get(b.n));
          release();
          again = true;
        }
        if (b.applied && released >= b.n) {
          p.blocked = null;
          if (p.source && p.source.resume && !busy()) p.source.resume();
          feed(p, b.rest);
          again = true;
        }
      }
    }
  }

  function release() {
    let progressed = false;
    for (;;) {
      const n = released + 1;
      const mark = marks.get(n);
      if (!mark || pumps.some((p) => p.seen < n)) break;
      clearTimeout(mark.timer);
      marks.delete(n);
      released = n;
      progressed = true;
      for (const msg of mark.then || []) {
        if (msg.type === 'done') msg.dropped = { stdout: mark.dropped.stdout || 0, stderr: mark.dropped.stderr || 0 };
        send(msg);
      }
    }
    if (progressed) setImmediate(wake);
  }

  /** Releases mark n although some pump has not read its marker (a marker write failed, or it is late). */
  function force(n) {
    const mark = marks.get(n);
    if (!mark) return;
    for (const p of pumps) {
      if (p.seen >= n) continue;
      log(`the ${p.name} marker ${n} did not arrive; going on without it`);
      if (p.blocked && !p.blocked.applied && p.blocked.n < n) {
        p.blocked.applied = true;
        p.applyMark(p.blocked.n, marks.get(p.blocked.n) || mark);
      }
      p.applyMark(n, mark);
    }
    release();
    wake();
  }

  /** A mark posted by the main thread: {n, begin?, end?, endId?, then?}. */
  function add(m) {
    const mark = { begin: m.begin, end: m.end, then: m.then, dropped: {} };
    marks.set(m.n, mark);
    mark.timer = setTimeout(() => force(m.n), MARK_TIMEOUT_MS);
    mark.timer.unref();
    wake();
    release();
  }

  return { feed, add, force };
}

module.exports = { createOrdering };
