'use strict';
/*
 * The I/O thread's channel to the host: JSON lines on the original stdin/stdout (private copies the main
 * thread made at start-up, see stdio-capture.js) or on a unix socket the agent listens on (one connection at
 * a time: a new one replaces the old one). Knows nothing of the messages but their framing.
 */

const fs = require('fs');
const net = require('net');
const { log } = require('./log');
const { writeAll, fdKind } = require('./fds');

/** Calls onLine with every non-blank line of the chunks it is fed (lines may be split across chunks). */
function lineReader(onLine) {
  let parts = [];
  return (chunk) => {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      parts.push(chunk.subarray(start, nl));
      const line = Buffer.concat(parts).toString('utf8');
      parts = [];
      start = nl + 1;
      if (line.trim()) onLine(line);
    }
    if (start < chunk.length) parts.push(Buffer.from(chunk.subarray(start)));
  };
}

/**
 * The channel. `onLine(line)` gets each request line; `onEnd()` is called once when the stdio channel has
 * ended and what was queued has been written (or 2 s have passed).
 * Returns {start(spec, inFd, outFd), send(msg), busy(), whenDrained(resume)}.
 */
function createChannel({ onLine, onEnd }) {
  let writer = null; // {write(line) -> bool, busy() -> bool, pending() -> bytes}
  const waitingForDrain = new Set();

  function resumeWaiting() {
    for (const resume of [...waitingForDrain]) resume();
    waitingForDrain.clear();
  }

  function send(msg) {
    if (!writer) return;
    try {
      writer.write(`${JSON.stringify(msg)}\n`);
    } catch (error) {
      log(`send failed: ${error && error.message}`);
    }
  }

  function streamWriter(socket, onError) {
    socket.on('error', onError);
    socket.on('drain', resumeWaiting);
    return {
      socket,
      write: (line) => socket.write(line),
      busy: () => socket.writableLength > 4 * 1024 * 1024,
      pending: () => socket.writableLength,
    };
  }

  let ending = false;
  function endOfChannel() {
    if (ending) return;
    ending = true;
    const deadline = Date.now() + 2000;
    const finish = () => {
      if (writer && writer.pending && writer.pending() > 0 && Date.now() < deadline) {
        setTimeout(finish, 10);
        return;
      }
      onEnd();
    };
    finish();
  }

  function startStdio(inFd, outFd) {
    const onError = (error) => {
      if (error && error.code !== 'EPIPE') log(`channel write failed: ${error.message}`);
      endOfChannel();
    };
    if (fdKind(outFd) === 'pipe') {
      writer = streamWriter(new net.Socket({ fd: outFd, readable: false, writable: true }), onError);
    } else {
      writer = {
        write: (line) => {
          try {
            writeAll(outFd, Buffer.from(line, 'utf8'));
          } catch (error) {
            onError(error);
          }
          return true;
        },
        busy: () => false,
      };
    }
    const feed = lineReader(onLine);
    const input =
      fdKind(inFd) === 'pipe'
        ? new net.Socket({ fd: inFd, readable: true, writable: false })
        : fs.createReadStream(null, { fd: inFd, autoClose: false });
    input.on('data', feed);
    input.on('end', endOfChannel);
    input.on('error', (error) => {
      log(`channel read failed: ${error.message}`);
      endOfChannel();
    });
  }

  function startSocket(sockPath) {
    try {
      const st = fs.lstatSync(sockPath);
      if (!st.isDirectory()) fs.unlinkSync(sockPath);
    } catch {
      // nothing there
    }
    let current = null;
    // SANDPIT_UNCONNECTED_EXIT_S: with no host connected that long, the agent ends (a warm sandbox left for a next
    // Sandpit that never came); 0 or unset: it waits for ever.
    const exitAfterS = Math.max(0, Number.parseInt(process.env.SANDPIT_UNCONNECTED_EXIT_S || '0', 10) || 0);
    let unconnected = null;
    const server = net.createServer((conn) => {
      if (current) current.destroy();
      if (unconnected) clearTimeout(unconnected);
      unconnected = null;
      current = conn;
      const w = streamWriter(conn, () => undefined);
      writer = w;
      conn.on('data', lineReader(onLine));
      conn.on('close', () => {
        if (current === conn) {
          current = null;
          writer = null;
          resumeWaiting();
          if (exitAfterS > 0) {
            unconnected = setTimeout(() => {
              log(`no host connected for ${exitAfterS} s: exiting`);
              endOfChannel();
            }, exitAfterS * 1000);
          }
        }
      });
    });
    server.on('error', (error) => log(`socket server: ${error.message}`));
    server.listen(sockPath, () => {
      try {
        fs.chmodSync(sockPath, 0o600);
      } catch (error) {
        log(`chmod ${sockPath}: ${error.message}`);
      }
    });
  }

  return {
    /** `spec` is 'stdio' (inFd/outFd are the channel) or 'socket:<path>'. */
    start(spec, inFd, outFd) {
      if (spec === 'stdio') startStdio(inFd, outFd);
      else startSocket(spec.slice('socket:'.length));
    },
    send,
    /** True while the host reads more slowly than output comes (more than 4 MiB queued). */
    busy: () => Boolean(writer && writer.busy()),
    /** Calls `resume` once the queue has drained (or the connection is gone). */
    whenDrained: (resume) => waitingForDrain.add(resume),
  };
}

module.exports = { createChannel };
