import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  currentIdentity,
  isOwnerDead,
  markInstanceAlive,
  markInstanceDead,
  processStartTime,
} from './instance-identity';
import type { InstanceIdentity } from './instance-identity';

const onLinux = process.platform === 'linux';

/** The pid of a process that has certainly exited (and was reaped). */
function exitedPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.status !== 0) throw new Error('could not run a short-lived child process');
  return child.pid;
}

const DEAD_PID = exitedPid();

function deadPid(): number {
  return DEAD_PID;
}

function self(): InstanceIdentity {
  return currentIdentity();
}

describe('processStartTime', () => {
  it.runIf(onLinux)('reads a non-empty, stable start time of this process on Linux', () => {
    const start = processStartTime(process.pid);
    expect(start).toMatch(/^\d+$/);
    expect(processStartTime(process.pid)).toBe(start);
  });

  it.runIf(onLinux)('reads the start time of another live process', () => {
    expect(processStartTime(process.ppid)).toMatch(/^\d+$/);
  });

  it('is empty for a process that does not exist', () => {
    expect(processStartTime(deadPid())).toBe('');
  });
});

describe('currentIdentity', () => {
  it('describes this process with a fresh instance id each time', () => {
    const a = currentIdentity();
    const b = currentIdentity();
    expect(a.pid).toBe(process.pid);
    expect(a.host.length).toBeGreaterThan(0);
    expect(a.processStart).toBe(processStartTime(process.pid));
    expect(a.instanceId).not.toBe(b.instanceId);
  });
});

describe('isOwnerDead', () => {
  it('never judges an owner on another host dead', () => {
    const me = self();
    expect(isOwnerDead({ host: `${me.host}-other`, pid: String(deadPid()), start: '1', instance: 'x' }, me)).toBe(
      false,
    );
  });

  it('never judges an owner without a host dead', () => {
    expect(isOwnerDead({ pid: String(deadPid()), start: '1', instance: 'x' }, self())).toBe(false);
  });

  it('judges an owner whose process has exited dead', () => {
    const me = self();
    expect(isOwnerDead({ host: me.host, pid: String(deadPid()), start: '12345', instance: randomUUID() }, me)).toBe(
      true,
    );
  });

  it.each(['', 'abc', '0', '-5', '1.5'])('judges an owner with the unusable pid %j dead', (pid) => {
    const me = self();
    expect(isOwnerDead({ host: me.host, pid, start: '1', instance: 'x' }, me)).toBe(true);
  });

  it('judges this process alive while its instance is alive, and dead once it is marked dead', () => {
    const me = self();
    const labels = { host: me.host, pid: String(me.pid), start: me.processStart, instance: me.instanceId };
    markInstanceAlive(me.instanceId);
    try {
      expect(isOwnerDead(labels, me)).toBe(false);
    } finally {
      markInstanceDead(me.instanceId);
    }
    expect(isOwnerDead(labels, me)).toBe(true);
  });

  it('judges another instance of this process by its own mark, not by ours', () => {
    const me = self();
    const other = randomUUID();
    markInstanceAlive(me.instanceId);
    try {
      expect(isOwnerDead({ host: me.host, pid: String(me.pid), start: me.processStart, instance: other }, me)).toBe(
        true,
      );
      markInstanceAlive(other);
      expect(isOwnerDead({ host: me.host, pid: String(me.pid), start: me.processStart, instance: other }, me)).toBe(
        false,
      );
    } finally {
      markInstanceDead(me.instanceId);
      markInstanceDead(other);
    }
  });

  it('does not judge this process dead when the resource names no instance', () => {
    const me = self();
    expect(isOwnerDead({ host: me.host, pid: String(me.pid), start: me.processStart }, me)).toBe(false);
  });

  it('judges a live process alive when its start time matches or is unknown', () => {
    const me = self();
    const parent = String(process.ppid);
    expect(isOwnerDead({ host: me.host, pid: parent, start: processStartTime(process.ppid), instance: 'x' }, me)).toBe(
      false,
    );
    expect(isOwnerDead({ host: me.host, pid: parent, start: '', instance: 'x' }, me)).toBe(false);
    expect(isOwnerDead({ host: me.host, pid: parent, instance: 'x' }, me)).toBe(false);
  });

  it.runIf(onLinux)('judges an owner dead when its pid now belongs to a process started at another time', () => {
    const me = self();
    const start = processStartTime(process.ppid);
    const earlier = String(Number(start) - 1);
    expect(isOwnerDead({ host: me.host, pid: String(process.ppid), start: earlier, instance: 'x' }, me)).toBe(true);
    // The same holds for our own pid: a former process that had it is gone.
    expect(isOwnerDead({ host: me.host, pid: String(me.pid), start: earlier, instance: me.instanceId }, me)).toBe(true);
  });
});
