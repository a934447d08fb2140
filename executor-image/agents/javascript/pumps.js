'use strict';
/*
 * Output pumps, in the I/O thread: one per stream (stdout, stderr), reading the read end of its FIFO (see
 * stdio-capture.js). A pump forwards what it reads to the execution that is running as `stream` messages:
 * at most `limit` bytes per execution (the rest is counted as dropped: the pump keeps draining, so the writer
 * never blocks), decoded as UTF-8 across reads (invalid bytes replaced), coalesced for COALESCE_MS and cut
 * into messages of at most READ_CHUNK bytes. Output read while no execution runs is discarded. Where one
 * execution's output ends and the next begins is decided by the marks (ordering.js).
 */

const net = require('net');
const { StringDecoder } = require('string_decoder');
const { log } = require('./log');
const { READ_CHUNK, COALESCE_MS } = require('./limits');
const { streamMessage } = require('./protocol');

class Pump {
  constructor(name, send) {
    this.name = name;
    this.send = send;
    this.eid = null; // the execution the output belongs to (null: none, output is discarded)
    this.limit = 0;
    this.sent = 0;
    this.dropped = 0;
    this.decoder = null;
    this.text = '';
    this.textBytes = 0;
    this.timer = null;
    // state of the marker scanning (ordering.js)
    this.held = Buffer.alloc(0); // bytes that may be the start of a marker
    this.seen = 0; // the last mark this pump has read past
    this.blocked = null; // {n, applied, rest}: stopped at marker n until its mark is released
    this.source = null; // the FIFO's stream (paused while blocked or while the channel is busy)
  }

  flushText() {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.text && this.eid !== null) this.send(streamMessage(this.eid, this.name, this.text));
    this.text = '';
    this.textBytes = 0;
  }

  forward(buf) {
    if (!buf.length || this.eid === null) return; // output written while no execution runs is discarded
    const room = Math.max(this.limit - this.sent, 0);
    if (buf.length > room) {
      this.dropped += buf.length - room;
      buf = buf.subarray(0, room);
    }
    this.sent += buf.length;
    let off = 0;
    while (off < buf.length) {
      const take = Math.min(buf.length - off, READ_CHUNK - this.textBytes);
      this.text += this.decoder.write(buf.subarray(off, off + take));
      this.textBytes += take;
      off += take;
      if (this.textBytes >= READ_CHUNK) this.flushText();
    }
    if (this.text && !this.timer) this.timer = setTimeout(() => this.flushText(), COALESCE_MS);
  }

  /** Crosses mark n: ends the current execution's output (`mark.end`) and/or begins the next one's. */
  applyMark(n, mark) {
    this.flushText();
    if (mark.end && this.eid !== null) {
      const rest = this.decoder.end();
      if (rest) this.send(streamMessage(this.eid, this.name, rest));
      mark.dropped[this.name] = this.dropped;
      this.eid = null;
    }
    if (mark.begin) {
      this.eid = mark.begin.id;
      this.limit = mark.begin.limit;
      this.sent = 0;
      this.dropped = 0;
      this.decoder = new StringDecoder('utf8');
    }
    this.seen = n;
  }

  /** Reads the FIFO read end `fd`, passing each chunk to onData. */
  attach(fd, onData) {
    const source = new net.Socket({ fd, readable: true, writable: false });
    this.source = source;
    source.on('data', onData);
    source.on('error', (error) => log(`${this.name} pump: ${error.message}`));
  }
}

/** While the host reads more slowly than output comes, the pumps stop reading (the writers then block). */
function pauseForBackPressure(pumps, channel) {
  if (!channel.busy()) return;
  for (const p of pumps) {
    if (p.source && p.source.pause) {
      p.source.pause();
      channel.whenDrained(() => {
        if (!p.blocked && p.source && !channel.busy()) p.source.resume();
      });
    }
  }
}

module.exports = { Pump, pauseForBackPressure };
