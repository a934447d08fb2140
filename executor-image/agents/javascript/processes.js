'use strict';
/*
 * Processes in the container, read from /proc: the agent's descendants (killed when the main thread is
 * blocked in a synchronous child process, see interrupts.js) and stray processes (every process but the
 * agent and init, killed after an interrupted execution when the agent is init's child in its own PID
 * namespace and SANDPIT_KILL_STRAYS=1, see executor.js).
 */

const fs = require('fs');

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

/** True when the container uses 75% or more of its cgroup's pids limit. */
function nearPidsLimit() {
  for (const base of ['/sys/fs/cgroup/pids', '/sys/fs/cgroup']) {
    try {
      const current = Number(fs.readFileSync(`${base}/pids.current`, 'utf8').trim());
      const limit = fs.readFileSync(`${base}/pids.max`, 'utf8').trim();
      return /^\d+$/.test(limit) && current >= 0.75 * Number(limit);
    } catch {
      // try the next
    }
  }
  return false;
}

/** Kills every process but this one and init; returns how many (not yet zombie) there were. */
function killStrays() {
  let strays = 0;
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === 1 || Number(name) === process.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
      if (stat[stat.lastIndexOf(')') + 2] !== 'Z') strays++;
    } catch {
      // gone
    }
  }
  if (strays) {
    try {
      process.kill(-1, 'SIGKILL'); // every process but this one and init
    } catch {
      // nothing left
    }
  }
  return strays;
}

module.exports = { killDescendants, straysMayBeKilled, nearPidsLimit, killStrays };
