'use strict';
/*
 * The Int32Array shared between the main thread and the I/O thread (Atomics), so that the I/O thread can
 * tell what the main thread is doing even while user code keeps it busy.
 */

const RUNNING = 0; // sequence number of the execution whose user code may be running (0: none)
const ACK = 1; // last sequence number whose interrupt the main thread has taken into account
const IN_VM = 2; // 1 while the main thread is inside vm's runInContext (breakOnSigint is armed)

function createSlots() {
  return new Int32Array(new SharedArrayBuffer(16));
}

module.exports = { RUNNING, ACK, IN_VM, createSlots };
