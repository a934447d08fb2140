'use strict';
/*
 * The `pipe` fs operation (see ../PROTOCOL.md), in the I/O thread: a program of the image run for the host as the
 * sandbox user, its stdin and stdout on a unix socket the host listens on in the agent's folder. A workspace's bulk
 * bytes (a snapshot's tar stream, a restore's) go straight from the program to the host: not through the engine's
 * exec stream, not base64 in JSON lines on the channel.
 */

const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');

const PIPE_SOCKET = /^[a-z0-9-]{1,40}\.sock$/;
const PIPE_TOKEN = /^[a-f0-9]{32,128}$/;
const PIPE_PATH = ['/usr/bin', '/bin']; // where the program is looked up (never the PATH user code may have changed)
// The program's whole environment: nothing user code set (TAR_OPTIONS, LD_PRELOAD …) reaches it, and its messages
// are in English (the host reads tar's warnings).
const PIPE_ENV = { PATH: '/usr/bin:/bin', LC_ALL: 'C' };
const PIPE_MAX_ARGS = 256;
const PIPE_MAX_ARG_BYTES = 1 << 16;
const PIPE_CONNECT_TIMEOUT_MS = 10000;

class PipeRefused extends Error {}

/** The folder shared with the host that the host's sockets are in (that of the agent's socket); null on stdio. */
function pipeDir(spec) {
  return typeof spec === 'string' && spec.startsWith('socket:') ? path.dirname(spec.slice('socket:'.length)) || null : null;
}

function programPath(name) {
  if (typeof name !== 'string' || !name || name.includes('/') || name.includes('\0')) throw new PipeRefused('The program must be a bare name.');
  for (const folder of PIPE_PATH) {
    const candidate = path.join(folder, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  throw new PipeRefused(`There is no program ${JSON.stringify(name.slice(0, 100))} in ${PIPE_PATH.join(':')}.`);
}

function checkedArgv(argv) {
  if (!Array.isArray(argv) || argv.length < 1 || argv.length > PIPE_MAX_ARGS) throw new PipeRefused(`argv must be a list of 1 to ${PIPE_MAX_ARGS} strings.`);
  for (const arg of argv) {
    if (typeof arg !== 'string' || arg.includes('\0') || Buffer.byteLength(arg) > PIPE_MAX_ARG_BYTES) {
      throw new PipeRefused(`Every argument must be a string without NUL, at most ${PIPE_MAX_ARG_BYTES} bytes.`);
    }
  }
  return argv;
}

/**
 * Runs msg.argv in `root` with stdin (msg.stdin) and stdout (msg.stdout) on a connection to the host's socket
 * msg.socket in `folder`, which first gets msg.token (so the host knows it is this agent, not some other process
 * of the sandbox). Calls done(null, {exitCode, stderr}) with the first `maxStderr` bytes of stderr, or done(error)
 * (a PipeRefused for a request that cannot run).
 */
function runPipe(folder, root, msg, maxStderr, done) {
  let argv;
  let program;
  try {
    if (!folder) throw new PipeRefused('This agent shares no folder with the host (stdio channel).');
    argv = checkedArgv(msg.argv);
    if (typeof msg.socket !== 'string' || !PIPE_SOCKET.test(msg.socket)) throw new PipeRefused('The socket must be a name like "pipe-1.sock" in the agent folder.');
    if (typeof msg.token !== 'string' || !PIPE_TOKEN.test(msg.token)) throw new PipeRefused('The token must be 32 to 128 hex digits.');
    program = programPath(argv[0]);
  } catch (error) {
    done(error);
    return;
  }
  let finished = false;
  const finish = (error, value) => {
    if (finished) return;
    finished = true;
    done(error, value);
  };
  const conn = net.createConnection(path.join(folder, msg.socket));
  // Never read here: what the host sends is the program's stdin, read by the program alone.
  conn.pause();
  const timer = setTimeout(() => {
    conn.destroy();
    finish(new PipeRefused('The host did not accept the connection in time.'));
  }, PIPE_CONNECT_TIMEOUT_MS);
  conn.on('error', (error) => {
    clearTimeout(timer);
    finish(new PipeRefused(`The connection to the host failed: ${error.message}.`));
  });
  conn.on('connect', () => {
    clearTimeout(timer);
    conn.write(`${msg.token}\n`, () => {
      let child;
      try {
        // The program gets the connection as stdin and/or stdout; the agent's own copy is closed once it runs.
        child = spawn(program, argv.slice(1), {
          argv0: argv[0],
          cwd: root,
          env: PIPE_ENV,
          stdio: [msg.stdin === true ? conn : 'ignore', msg.stdout === true ? conn : 'ignore', 'pipe'],
        });
      } catch (error) {
        conn.destroy();
        finish(error);
        return;
      }
      conn.destroy();
      const kept = [];
      let size = 0;
      child.stderr.on('data', (chunk) => {
        if (size >= maxStderr) return;
        const part = chunk.subarray(0, maxStderr - size);
        kept.push(part);
        size += part.length;
      });
      child.on('error', (error) => finish(error));
      child.on('close', (code, signal) => {
        finish(null, { exitCode: code === null ? -(os.constants.signals[signal] || 1) : code, stderr: Buffer.concat(kept).toString('utf8') });
      });
    });
  });
}

module.exports = { runPipe, pipeDir, PipeRefused };
