'use strict';
/*
 * Processes in the container, read from /proc: the agent's descendants (killed when the main thread is
 * blocked in a synchronous child process, see interrupts.js) and stray processes (every process but the
 * agent and init, killed at the end of every execution (executor.js) and on a `reap` request
 * (workspace-fs.js) when the agent is init's child in its own PID namespace and SANDPIT_KILL_STRAYS=1).
 * The reads behind killStrays let a shortage of descriptors out (noFds): their caller frees the reserve's and reads
 * again (fd-reserve.js), instead of taking an unreadable /proc for one without strays.
 */

const fs = require('fs');
const { sleepMs, noFds } = require('./fds');

const isDead = (state) => state === undefined || state === 'Z' || state === 'X';

/** Map(pid -> state letter) of this process's descendants in `table` (processTable()). */
function descendants(table) {
  const children = new Map(); // ppid -> [pid]
  for (const [pid, [, ppid]] of table) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  const tree = new Map();
  const todo = [process.pid];
  while (todo.length) {
    for (const pid of children.get(todo.pop()) || []) {
      tree.set(pid, table.get(pid)[0]);
      todo.push(pid);
    }
  }
  return tree;
}

const FREEZE_MS = 250;

/**
 * SIGKILLs every descendant of this process. The tree is frozen first: SIGSTOP, pass after pass, until no new
 * process appears and each one has stopped (or waits in vfork for a stopped child), for at most FREEZE_MS. A
 * process killed while it forks would leave its new child to init, out of the tree, still holding the pipes of a
 * synchronous child process (execSync waits for them); stopped processes cannot fork, so once the tree holds
 * still, one SIGKILL each ends it all. (Should one escape all the same, interrupts.js kills the strays.)
 */
function killDescendants() {
  const seen = new Set();
  const signal = (pid, name) => {
    try {
      process.kill(pid, name);
    } catch {
      // gone
    }
  };
  const deadline = Date.now() + FREEZE_MS;
  for (;;) {
    let tree;
    try {
      tree = descendants(processTable());
    } catch {
      break; // no descriptor left to read /proc: kill what was seen
    }
    let still = true;
    for (const [pid, state] of tree) {
      if (!seen.has(pid)) {
        seen.add(pid);
        signal(pid, 'SIGSTOP');
        still = false;
      } else if (state !== 'T' && state !== 't' && state !== 'D' && !isDead(state)) {
        still = false; // the stop is not delivered yet
      }
    }
    if (still || Date.now() >= deadline) break;
    sleepMs(1);
  }
  for (const pid of seen) signal(pid, 'SIGKILL');
}

const CLOCK_TICKS_PER_S = 100; // USER_HZ, what /proc counts CPU time in

/** The CPU time (ms) thread `tid` of this process has used (user + system), from /proc; -1 if unreadable. */
function threadCpuMs(tid) {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_S : -1;
  } catch {
    return -1;
  }
}

/**
 * Whether kill(-1, SIGKILL) is safe and wanted: SANDPIT_KILL_STRAYS=1 and the agent is init or init's child
 * (a PID namespace of its own). Read once at start-up, before user code can change the environment.
 */
function straysMayBeKilled() {
  return process.env.SANDPIT_KILL_STRAYS === '1' && (process.pid === 1 || process.ppid === 1);
}

/** Map(pid -> state letter) of every process in /proc but this one and init. */
function processStates() {
  const states = new Map();
  let names = [];
  try {
    names = fs.readdirSync('/proc');
  } catch (error) {
    if (noFds(error)) throw error;
    return states;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === 1 || Number(name) === process.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
      states.set(Number(name), stat[stat.lastIndexOf(')') + 2]);
    } catch (error) {
      if (noFds(error)) throw error;
      // gone
    }
  }
  return states;
}

const KEPT_MARK = 'sandpit-process'; // argv[3] of the leader: sh -c <wrapper> sandpit-process <command>

/** The fields of /proc/<pid>/stat after the command name: [state, ppid, pgrp, session, …], or undefined. */
function statFields(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ', 5);
  } catch (error) {
    if (noFds(error)) throw error;
    return undefined;
  }
}

/**
 * Map(pid -> [state, ppid, session]) of every process in /proc but this one and init: one read of each
 * /proc/<pid>/stat.
 */
function processTable() {
  const table = new Map();
  let names = [];
  try {
    names = fs.readdirSync('/proc');
  } catch (error) {
    if (noFds(error)) throw error;
    return table;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === 1 || Number(name) === process.pid) continue;
    const fields = statFields(name);
    if (fields) table.set(Number(name), [fields[0], Number(fields[1]), Number(fields[3])]);
  }
  return table;
}

/**
 * Session ids of the host's long-running processes (start_process, preview forwarders) in `table`
 * (processTable()): each one's leader was started by the engine (`exec`: its parent is outside the container,
 * ppid 0) and carries the host's mark in its argv. Code in the sandbox can never make such a process (all of its
 * processes descend from init). Only leaders are read further (their argv).
 */
function keptSessions(table) {
  const kept = new Set();
  for (const [pid, [state, ppid, session]] of table) {
    if (isDead(state) || ppid !== 0 || session !== pid) continue;
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
      if (argv.length > 4 && argv[0] === 'sh' && argv[3] === KEPT_MARK) kept.add(pid);
    } catch (error) {
      if (noFds(error)) throw error;
      // gone
    }
  }
  return kept;
}

/**
 * Kills every process but this one and init; returns how many (not yet zombie) there were. Waits (at most a
 * second) until each of them is dead (a zombie at least), so none can still write into the output pipes.
 * Children are reaped by libuv, as usual. Called by the main thread (executor.js) and the I/O thread (`reap`).
 * The host's long-running processes (keptSessions) and everything in their sessions are spared: then each
 * stray is killed by pid, pass after pass until none is left.
 */
function killStrays() {
  const table = processTable();
  const kept = keptSessions(table);
  const strays = new Set(
    [...table].filter(([, [state, , session]]) => !isDead(state) && !kept.has(session)).map(([pid]) => pid),
  );
  if (!strays.size) return 0;
  if (!kept.size) {
    try {
      process.kill(-1, 'SIGKILL'); // every process but this one and init
    } catch {
      // nothing left
    }
  }
  const deadline = Date.now() + 1000;
  let pending = [...strays];
  while (pending.length && Date.now() < deadline) {
    if (kept.size) {
      for (const [pid, [state, , session]] of processTable()) {
        if (isDead(state) || kept.has(session)) continue;
        if (!strays.has(pid)) {
          strays.add(pid);
          pending.push(pid);
        }
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
    sleepMs(2);
    const states = processStates();
    pending = pending.filter((pid) => !isDead(states.get(pid)));
  }
  return strays.size;
}

module.exports = { killDescendants, straysMayBeKilled, killStrays, threadCpuMs };
