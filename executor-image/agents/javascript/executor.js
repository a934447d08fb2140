'use strict';
/*
 * Executions, on the main thread: the queue of `execute` requests (one at a time, in arrival order), the
 * run of a cell in the context, and the messages that end it (result or error, then done), sent through
 * marks so that they follow the execution's output (marks.js).
 *
 * Interrupts, the main thread's side (the I/O thread's side is in interrupts.js): an `interrupt` for a
 * queued execution cancels it before it starts; for the running one, SIGINT stops synchronous code through
 * the vm option `breakOnSigint`, and the SIGINT listener abandons a pending `await` (status interrupted;
 * timers the cell created are cleared). The ACK slot tells the I/O thread it can stop sending SIGINT.
 * Errors thrown in callbacks while an execution runs become its error; between executions they are kept and
 * printed on stderr at the start of the next one.
 */

const util = require('util');
const { log } = require('./log');
const { DEFAULT_LIMIT, clip } = require('./limits');
const { RUNNING, ACK, IN_VM } = require('./shared-slots');
const { compileCell } = require('./cell-compiler');
const { describe, errorMessage } = require('./errors');
const { snapshotFiles, changedFiles } = require('./workspace-files');
const { straysMayBeKilled, killStrays } = require('./processes');
const { createFdReserve } = require('./fd-reserve');
const protocol = require('./protocol');

/** Descriptors freed for the scans and /proc reads around a run (each holds one or two at a time). */
const SCAN_FDS = 4;

/**
 * Starts handling the I/O thread's requests. `shared` is the Int32Array of shared-slots.js, `mark` the
 * main thread's mark(), `user` the context of context.js, `restoreStdio` undoes what user code did to fds
 * 0/1/2, `realExit` ends the process. Returns {executionId()}: the id of the execution being handled.
 */
function startExecutor({ worker, shared, mark, user, timers, stderr, restoreStdio, workspace, realExit }) {
  const { context, scriptOptions, setUnderscore } = user;
  let active = null; // the execution whose code runs: {id, seq, settle, interrupt}
  let handling = null; // id of the execution being handled (display messages are tagged with it)

  // -- errors outside the cell's own flow ---------------------------------------------------------------
  const backgroundErrors = [];
  function report(kind, error) {
    if (active) {
      active.settle({ status: 'error', error });
      return;
    }
    if (handling !== null) {
      try {
        stderr.write(`${kind}: ${describe(error).traceback}`);
      } catch {
        // ignore
      }
      return;
    }
    if (backgroundErrors.length < 5) backgroundErrors.push([kind, error]);
  }
  const onUncaught = (error) => report('Uncaught exception', error);
  const onRejection = (reason) => report('Unhandled promise rejection', reason);
  const onSigint = () => {
    if (active) active.interrupt();
  };
  /** (Re-)installs the agent's process listeners (user code may have removed them). */
  function ensureHandlers() {
    if (!process.listeners('uncaughtException').includes(onUncaught)) process.on('uncaughtException', onUncaught);
    if (!process.listeners('unhandledRejection').includes(onRejection)) process.on('unhandledRejection', onRejection);
    if (!process.listeners('SIGINT').includes(onSigint)) process.on('SIGINT', onSigint);
  }
  ensureHandlers();

  const mayKillStrays = straysMayBeKilled();
  // The file scans and /proc reads around a run get descriptors even when user code took all the others. They
  // hold one or two at a time (a directory or a /proc file, read and closed): SCAN_FDS are freed for them.
  const reserve = createFdReserve(32);

  // -- the queue ---------------------------------------------------------------------------------------
  const queue = [];
  const accepted = new Set();
  const cancelled = new Set();
  let busy = false;
  let cells = 0;

  worker.on('message', (m) => {
    if (m.k === 'execute') {
      const { id } = m.msg;
      if (accepted.has(id)) return;
      accepted.add(id);
      queue.push(m.msg);
      if (!busy) drain();
    } else if (m.k === 'interrupt') {
      if (!accepted.has(m.id)) return;
      cancelled.add(m.id);
      if (active && active.id === m.id) active.interrupt();
    } else if (m.k === 'exit') {
      realExit(0);
    }
  });

  async function drain() {
    busy = true;
    while (queue.length) {
      // One turn of the event loop first: requests already sent by the I/O thread (an interrupt for this
      // execution among them) are delivered before it starts, not after.
      await new Promise((resolve) => setImmediate(resolve));
      const msg = queue.shift();
      try {
        await execute(msg);
      } catch (error) {
        log(`execution failed: ${error && error.stack}`);
        const finish = protocol.doneMessage(msg.id, {
          status: 'error',
          durationMs: 0,
          files: [],
          filesTruncated: false,
          straysKilled: 0,
        });
        mark({
          end: true,
          endId: msg.id,
          then: [protocol.errorMessage(msg.id, 'AgentError', String(error), `AgentError: ${error}\n`), finish],
        });
        accepted.delete(msg.id);
        cancelled.delete(msg.id);
        handling = null;
      }
    }
    busy = false;
  }

  // -- one cell -----------------------------------------------------------------------------------------
  function runCell(seq, id, code, filename) {
    return new Promise((resolve) => {
      let settled = false;
      const settle = (outcome) => {
        if (settled) return;
        settled = true;
        resolve(outcome);
        active = null;
        timers.setOwner(0);
        Atomics.store(shared, RUNNING, 0);
      };
      const run = {
        id,
        seq,
        settle,
        interrupt: () => {
          Atomics.store(shared, ACK, seq);
          timers.clearOwnedBy(seq);
          settle({ status: 'interrupted' });
        },
      };
      if (cancelled.has(id)) {
        run.interrupt();
        return;
      }
      let compiled;
      try {
        compiled = compileCell(code, filename, scriptOptions);
      } catch (error) {
        settle({ status: 'error', error, compile: true });
        return;
      }
      active = run;
      timers.setOwner(seq);
      Atomics.store(shared, RUNNING, seq);
      let value;
      Atomics.store(shared, IN_VM, 1);
      try {
        value = compiled.script.runInContext(context, { breakOnSigint: true, displayErrors: false });
      } catch (error) {
        Atomics.store(shared, IN_VM, 0);
        if (error && error.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED') run.interrupt();
        else settle({ status: 'error', error });
        return;
      }
      Atomics.store(shared, IN_VM, 0);
      if (compiled.async) {
        Promise.resolve(value).then(
          (r) =>
            settle(
              r && typeof r === 'object' && Object.prototype.hasOwnProperty.call(r, 'value')
                ? { status: 'ok', hasValue: r.value !== undefined, value: r.value }
                : { status: 'ok', hasValue: false },
            ),
          (error) => settle({ status: 'error', error }),
        );
      } else {
        // one turn of the event loop, so that a rejection the code left unhandled belongs to it
        setImmediate(() => settle({ status: 'ok', hasValue: value !== undefined, value }));
      }
    });
  }

  // -- one execution: the cell, then its result or error, then done ---------------------------------------
  async function execute(msg) {
    const { id, code } = msg;
    let limit = msg.outputLimit;
    if (!Number.isInteger(limit) || limit < 0) limit = DEFAULT_LIMIT;
    const seq = ++cells;
    const filename = `<cell-${seq}>`;
    restoreStdio();
    ensureHandlers();
    const before = reserve.retryWithFds(() => snapshotFiles(workspace), SCAN_FDS);
    handling = id;
    mark({ begin: { id, seq, limit } });
    while (backgroundErrors.length) {
      const [kind, error] = backgroundErrors.shift();
      stderr.write(`[between executions] ${kind}: ${describe(error).traceback}`);
    }
    const started = performance.now();
    const outcome = await runCell(seq, id, code, filename);
    const duration = performance.now() - started;
    const messages = [];
    let status = outcome.status;
    if (status === 'error') {
      messages.push(errorMessage(id, outcome.error, limit, outcome.compile));
    } else if (status === 'interrupted') {
      messages.push(protocol.interruptedMessage(id));
    } else if (outcome.hasValue) {
      try {
        const text = util.inspect(outcome.value, { colors: false, depth: 2 });
        setUnderscore(outcome.value);
        messages.push(protocol.resultMessage(id, clip(text, limit)));
      } catch (error) {
        status = 'error';
        messages.push(errorMessage(id, error, limit));
      }
    }
    let strays = 0;
    // No process outlives the execution that started it (a background process would print into later
    // executions, or hold pids and memory). Its output so far precedes the end mark, written after this.
    if (mayKillStrays) strays = reserve.retryWithFds(killStrays, SCAN_FDS);
    const after = reserve.retryWithFds(() => snapshotFiles(workspace), SCAN_FDS);
    const { files, filesTruncated } = changedFiles(before, after);
    messages.push(
      protocol.doneMessage(id, {
        status,
        durationMs: Math.round(duration * 1000) / 1000,
        files,
        filesTruncated,
        straysKilled: strays,
      }),
    );
    handling = null;
    mark({ end: true, endId: id, then: messages });
    accepted.delete(id);
    cancelled.delete(id);
  }

  return { executionId: () => handling };
}

module.exports = { startExecutor };
