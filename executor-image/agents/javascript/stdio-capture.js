'use strict';
/*
 * Fd-level capture of output, set up at start-up before anything touches stdio (process.stdout and friends
 * are created lazily by Node; nothing may create them before this has run).
 *
 * Node cannot dup2(), but open() returns the lowest free descriptor: the agent re-opens its original
 * stdin/stdout through /proc/self/fd (private copies for the channel), then closes fds 0/1/2 and re-opens
 * them as /dev/null and the write ends of two FIFOs (made with `mkfifo` in a private temporary directory —
 * $TMPDIR, /tmp, /dev/shm — and unlinked at once). The I/O thread reads the FIFOs (pumps.js). So everything
 * written to fds 1/2 is captured at the fd level: process.stdout/stderr and console (replaced by synchronous
 * writers on fds 1/2, user-stdio.js), fs.writeSync(1, …), user worker threads, and child processes that
 * write to the stdio they inherit (`stdio: 'inherit'` or process.stdout/stderr as stdio entries, fork(),
 * detached or background children, shell pipelines and their grandchildren) — as long as they write during
 * an execution: output written between executions is discarded. execSync's stderr is captured too (Node
 * re-writes it to process.stderr when the child ends). Output of children spawned with 'pipe' (the default
 * for spawn/exec/execFile/spawnSync, and execSync's stdout) goes to the parent code, as in Node; it is
 * printed only if user code prints it. Nothing user code prints can reach the channel; user code and its
 * children read EOF on stdin.
 *
 * Degraded modes, logged on the original stderr: if stdin/stdout cannot be re-opened (sockets, not the case
 * under Docker), the channel stays on fds 0/1 and a child inheriting them could corrupt it; if no FIFO can be
 * made, fds 1/2 are /dev/null and only in-process writes (process.stdout/stderr, console) are captured.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { log } = require('./log');
const { reopen, placeAt } = require('./fds');

const { O_RDONLY, O_WRONLY, O_RDWR, O_APPEND } = fs.constants;

/** Two FIFOs in a private temporary directory; returns their paths or undefined. */
function makeFifos() {
  const dirs = [...new Set([process.env.TMPDIR, os.tmpdir(), '/tmp', '/dev/shm', '/run/sandpit'].filter(Boolean))];
  for (const base of dirs) {
    let dir;
    try {
      dir = fs.mkdtempSync(path.join(base, 'sandpit-agent-'));
      fs.chmodSync(dir, 0o700);
      const out = path.join(dir, 'stdout');
      const err = path.join(dir, 'stderr');
      const made = spawnSync('mkfifo', ['-m', '600', out, err], { stdio: 'ignore' });
      if (made.status === 0 && fs.statSync(out).isFIFO() && fs.statSync(err).isFIFO()) return { dir, out, err };
    } catch {
      // try the next directory
    }
    try {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // leave it
    }
  }
  return undefined;
}

/**
 * Claims the channel (for `spec` 'stdio') and replaces fds 0/1/2. Returns {inFd, outFd, channelOnStdio,
 * pipes, restore}: inFd/outFd are the channel's private fds (-1 for a socket channel), `pipes` is
 * {stdout, stderr} of {read, priv (private write end), pub (fd user code writes to), ino}, or null without
 * FIFOs, and restore() undoes what an execution did to fds 0/1/2.
 */
function captureStdio(spec) {
  let inFd = -1;
  let outFd = -1;
  let channelOnStdio = false; // the channel could not be moved: fds 0/1 stay the channel (degraded)
  if (spec === 'stdio') {
    inFd = reopen(0, O_RDONLY);
    outFd = reopen(1, O_WRONLY | O_APPEND);
    if (inFd < 0 || outFd < 0) {
      log(
        'stdin/stdout cannot be re-opened (sockets?): the channel stays on fds 0/1, so child processes that inherit fd 1 and raw writes to fd 1 would corrupt it',
      );
      if (inFd >= 0) fs.closeSync(inFd);
      if (outFd >= 0) fs.closeSync(outFd);
      inFd = 0;
      outFd = 1;
      channelOnStdio = true;
    }
  }
  const fifos = makeFifos();
  const pipes = fifos ? {} : null;
  if (fifos) {
    for (const name of ['stdout', 'stderr']) {
      const file = fifos[name === 'stdout' ? 'out' : 'err'];
      pipes[name] = { read: fs.openSync(file, O_RDWR), priv: fs.openSync(file, O_WRONLY), ino: fs.statSync(file).ino };
    }
  } else {
    log(
      'no FIFO could be made (mkfifo missing or no writable temporary directory): output of child processes that inherit stdio is not captured',
    );
  }
  try {
    if (!channelOnStdio) placeAt(0, '/dev/null', O_RDWR);
    if (fifos) {
      if (!channelOnStdio) placeAt(1, fifos.out, O_WRONLY);
      placeAt(2, fifos.err, O_WRONLY);
    } else {
      if (!channelOnStdio) placeAt(1, '/dev/null', O_WRONLY);
      placeAt(2, '/dev/null', O_WRONLY);
    }
  } catch (error) {
    log(`setting up stdio failed: ${error.message}`);
  }
  if (fifos) {
    pipes.stdout.pub = channelOnStdio ? fs.openSync(`/proc/self/fd/${pipes.stdout.priv}`, O_WRONLY) : 1;
    pipes.stderr.pub = 2;
    fs.rmSync(fifos.dir, { recursive: true, force: true });
  }
  const devnullStat = fs.statSync('/dev/null');

  /** Undo what the previous execution may have done to fds 0/1/2. */
  function restore() {
    const want = [
      [0, () => !channelOnStdio, (st) => st.ino === devnullStat.ino && st.dev === devnullStat.dev, '/dev/null', O_RDWR],
      [
        1,
        () => pipes && !channelOnStdio,
        (st) => st.ino === pipes.stdout.ino,
        pipes && `/proc/self/fd/${pipes.stdout.priv}`,
        O_WRONLY,
      ],
      [2, () => pipes, (st) => st.ino === pipes.stderr.ino, pipes && `/proc/self/fd/${pipes.stderr.priv}`, O_WRONLY],
    ];
    for (const [fd, applies, ok, file, flags] of want) {
      if (!applies()) continue;
      let good = false;
      try {
        good = ok(fs.fstatSync(fd));
      } catch {
        // closed
      }
      if (good) continue;
      try {
        placeAt(fd, file, flags);
      } catch (error) {
        log(`cannot restore fd ${fd}: ${error.message}`);
      }
    }
  }

  return { inFd, outFd, channelOnStdio, pipes, restore };
}

/** The original stderr, re-opened for the agent's diagnostics (-1 if it cannot be). */
function openLog() {
  return reopen(2, O_WRONLY | O_APPEND);
}

module.exports = { captureStdio, openLog };
