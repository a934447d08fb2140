'use strict';
/*
 * Processes in the container, read from /proc: the agent's descendants (killed when the main thread is
 * blocked in a synchronous child process, see interrupts.js) and stray processes (every process but the
 * agent and init, killed at the end of every execution (executor.js) and on a `reap` request
 * (workspace-fs.js) when the agent is init's child in its own PID namespace and SANDPIT_KILL_STRAYS=1).
 */

const fs = require('fs');
const { sleepMs } = require('./fds');

/** SIGKILLs every descendant of this process (the whole tree is collected first: orphans escape). */
function killDescendants() {
  const children = new Map(); // ppid -> [pid]
  let names = [];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      const ppid = Number(fields[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      // gone
    }
  }
  const tree = [];
  const todo = [process.pid];
  while (todo.length) {
    for (const pid of children.get(todo.pop()) || []) {
      tree.push(pid);
      todo.push(pid);
    }
  }
  for (const pid of tree) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
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
  } catch {
    return states;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === 1 || Number(name) === process.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
      states.set(Number(name), stat[stat.lastIndexOf(')') + 2]);
    } catch {
      // gone
    }
  }
  return states;
}

const isDead = (state) => state === undefined || state === 'Z' || state === 'X';

/**
 * Kills every process but this one and init; returns how many (not yet zombie) there were. Waits (at most a
 * second) until each of them is dead (a zombie at least), so none can still write into the output pipes.
 * Children are reaped by libuv, as usual. Called by the main thread (executor.js) and the I/O thread (`reap`).
 */
function killStrays() {
  const strays = [...processStates()].filter(([, state]) => !isDead(state)).map(([pid]) => pid);
  if (!strays.length) return 0;
  try {
    process.kill(-1, 'SIGKILL'); // every process but this one and init
  } catch {
    // nothing left
  }
  const deadline = Date.now() + 1000;
  let pending = strays;
  while (pending.length && Date.now() < deadline) {
    sleepMs(2);
    const states = processStates();
    pending = pending.filter((pid) => !isDead(states.get(pid)));
  }
  return strays.length;
}

module.exports = { killDescendants, straysMayBeKilled, killStrays };
