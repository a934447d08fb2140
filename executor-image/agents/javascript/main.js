#!/usr/bin/env node
'use strict';
/*
 * Sandpit's in-container JavaScript agent (protocol 1, see ../PROTOCOL.md): the entry point.
 *
 * Keeps ONE persistent `vm` context between executions and speaks JSON lines with the host on a private
 * channel (a unix socket, or the original stdin/stdout). CommonJS, Node >= 18, no dependencies.
 * Runs as `node main.js` (in the image: `node /opt/sandpit/agent/main.js`).
 *
 * Threads. The main thread runs user code. A worker thread, the I/O thread (io-thread.js), owns the channel
 * and the output pumps, so requests are read, interrupts delivered and output forwarded even while user
 * code keeps the main thread busy (`while (true) {}`). The threads share a few Int32 slots
 * (shared-slots.js) and exchange messages (requests one way, ordering marks the other).
 *
 * Start-up (main()), in this order:
 *   1. the original stderr is re-opened for diagnostics (log.js);
 *   2. the channel is claimed and fds 0/1/2 are replaced, BEFORE anything touches stdio (stdio-capture.js:
 *      fd-level capture of output through FIFOs). Only log.js, fds.js and stdio-capture.js are loaded
 *      before this; the other modules are required afterwards (and no module has side effects when it is
 *      required: agent.test.ts checks that loading them all touches no stdio);
 *   3. the I/O thread starts (io-thread.js: channel.js, pumps.js, ordering.js, interrupts.js, and workspace-fs.js
 *      for the host's file operations);
 *   4. process.stdout/stderr/stdin become the agent's writers (user-stdio.js), process.exit() throws
 *      (process-exit.js);
 *   5. the context is made (context.js, with display.js and timers.js);
 *   6. executions are handled (executor.js: cell-compiler.js compiles cells, errors.js shapes their errors,
 *      marks.js orders their messages after their output, workspace-files.js lists the files they changed,
 *      processes.js kills what they leave behind: no process outlives its execution).
 *
 * The other modules: protocol.js (message shapes), limits.js (sizes and delays), fds.js (descriptor
 * helpers), tokenizer.js, syntax.js and bindings.js (the cell compiler's parsing).
 */

const path = require('path');
const { log, setLogFd } = require('./log');
const { captureStdio, openLog } = require('./stdio-capture');

function main() {
  const spec = process.env.SANDPIT_CHANNEL || 'stdio';
  const logFd = openLog();
  setLogFd(logFd);
  if (spec !== 'stdio' && !(spec.startsWith('socket:') && spec.length > 'socket:'.length)) {
    log(`unsupported SANDPIT_CHANNEL ${JSON.stringify(spec)}`);
    process.exit(2);
  }
  const workspace = process.env.SANDPIT_WORKSPACE || '/workspace';
  const realExit = process.reallyExit.bind(process);

  // -- claim the channel, then replace fds 0/1/2 (before anything touches process.stdout) ------------
  const stdio = captureStdio(spec);
  const { pipes } = stdio;

  // Only now the rest of the agent is loaded.
  const crypto = require('crypto');
  const { Worker } = require('worker_threads');
  const { createSlots } = require('./shared-slots');
  const { createMarker } = require('./marks');
  const { installUserStdio } = require('./user-stdio');
  const { patchProcessExit } = require('./process-exit');
  const { createTimers } = require('./timers');
  const { createDisplay } = require('./display');
  const { createUserContext } = require('./context');
  const { startExecutor } = require('./executor');
  const { straysMayBeKilled } = require('./processes');

  // -- the I/O thread --------------------------------------------------------------------------------
  const shared = createSlots();
  const secret = crypto.randomBytes(12).toString('hex');
  const worker = new Worker(path.join(__dirname, 'io-thread.js'), {
    workerData: {
      sandpitIo: true,
      spec,
      inFd: stdio.inFd,
      outFd: stdio.outFd,
      logFd,
      secret,
      shared: shared.buffer,
      pumps: ['stdout', 'stderr'].map((name) => ({ name, fd: pipes ? pipes[name].read : -1 })),
      workspace,
      mayKillStrays: straysMayBeKilled(),
    },
    stdout: true,
    stderr: true,
  });
  worker.stdout.on('data', (d) => log(`I/O thread stdout: ${d}`));
  worker.stderr.on('data', (d) => log(`I/O thread stderr: ${d}`));
  worker.on('error', (error) => {
    log(`the I/O thread failed: ${error && error.stack}`);
    realExit(1);
  });
  worker.on('exit', (code) => {
    log(`the I/O thread exited (${code})`);
    realExit(1);
  });
  const mark = createMarker(worker, secret, pipes);

  // -- what user code sees of the process, and the context -------------------------------------------
  const { stdout, stderr } = installUserStdio(pipes, worker);
  patchProcessExit();
  const timers = createTimers();
  const display = createDisplay({ stdout, mark, executionId: () => executor.executionId() });
  const user = createUserContext({ workspace, stdout, stderr, display, timers });

  // -- executions -------------------------------------------------------------------------------------
  const executor = startExecutor({
    worker,
    shared,
    mark,
    user,
    timers,
    stderr,
    restoreStdio: stdio.restore,
    workspace,
    realExit,
  });
}

if (require.main === module) main();

module.exports = { main };
