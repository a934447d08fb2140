'use strict';
/*
 * Interrupts, the I/O thread's side (the main thread's side is in executor.js). On `interrupt`, the I/O
 * thread sends SIGINT to the process until the main thread acknowledges it (the ACK slot, shared-slots.js):
 * SIGINT stops synchronous code through the vm option `breakOnSigint`, and wakes a pending `await` (the
 * execution is abandoned, its timers cleared). Code that keeps the thread busy after an `await` (outside the
 * vm call, IN_VM is 0) is stopped through an in-process inspector session (Runtime.terminateExecution) after
 * 250 ms, once the main thread has used 100 ms of CPU since the interrupt: a thread only slow to get to the
 * SIGINT listener (a busy machine) is left to it, as a termination that came after the listener had ended the
 * execution would cut whatever JavaScript ran next, the next execution among it. If the main thread is blocked
 * in a synchronous child process (execSync), the agent's descendants are killed after half a second
 * (processes.js freezes the tree first); should the thread still be blocked at a later step, they are killed
 * again, and where strays may be killed (the agent in a PID namespace of its own) every stray with them: a
 * process that left the tree still holding execSync's pipes dies too. SIGINT is repeated for at most a minute.
 */

const { log } = require('./log');
const { killDescendants, killStrays, threadCpuMs } = require('./processes');
const { RUNNING, ACK, IN_VM } = require('./shared-slots');

const STEP_MS = 250;
const TERMINATE_AFTER_MS = 250;
const BUSY_CPU_MS = 100;
const KILL_CHILDREN_AFTER_MS = 500;
const GIVE_UP_AFTER_MS = 60000;

/**
 * Returns {begin(id, seq), end(id), interrupt(id)}; `shared` is the Int32Array of shared-slots.js, `mayKillStrays`
 * says whether strays may be killed (processes.js straysMayBeKilled(), decided at start-up).
 */
function createInterrupter(shared, mayKillStrays) {
  const seqById = new Map();
  let inspectorSession;

  function terminateMainJs() {
    try {
      if (!inspectorSession) {
        const inspector = require('inspector');
        inspectorSession = new inspector.Session();
        inspectorSession.connectToMainThread();
      }
      inspectorSession.post('Runtime.terminateExecution', () => undefined);
    } catch (error) {
      log(`cannot stop the main thread's JavaScript: ${error && error.message}`);
      inspectorSession = null;
    }
  }

  function killStraysNow() {
    try {
      killStrays();
    } catch (error) {
      log(`cannot kill the strays of an interrupted execution: ${error && error.message}`);
    }
  }

  function interrupt(id) {
    const seq = seqById.get(id);
    if (!seq || Atomics.load(shared, RUNNING) !== seq) return;
    const started = Date.now();
    let terminated = false;
    let killed = false;
    const cpuAtStart = threadCpuMs(process.pid); // the main thread's id is the process's
    const mainThreadBusy = () => cpuAtStart < 0 || threadCpuMs(process.pid) - cpuAtStart >= BUSY_CPU_MS;
    const pending = () => Atomics.load(shared, RUNNING) === seq && Atomics.load(shared, ACK) !== seq;
    const step = () => {
      if (!pending()) return;
      process.kill(process.pid, 'SIGINT');
      const elapsed = Date.now() - started;
      if (elapsed >= TERMINATE_AFTER_MS && !terminated && Atomics.load(shared, IN_VM) === 0 && mainThreadBusy()) {
        // Busy outside the vm call (in a callback after an await): breakOnSigint cannot see it.
        terminated = true;
        terminateMainJs();
      }
      if (elapsed >= KILL_CHILDREN_AFTER_MS) {
        // Blocked in a synchronous child process (execSync …): stop its tree so the thread comes back.
        if (killed && mayKillStrays) killStraysNow();
        else killDescendants();
        killed = true;
      }
      if (elapsed < GIVE_UP_AFTER_MS) setTimeout(step, STEP_MS);
    };
    step();
  }

  return {
    /** Execution `id` (sequence number `seq`) has begun: it can be interrupted. */
    begin: (id, seq) => seqById.set(id, seq),
    end: (id) => seqById.delete(id),
    interrupt,
  };
}

module.exports = { createInterrupter };
