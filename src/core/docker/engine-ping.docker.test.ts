import Docker from 'dockerode';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../log';
import { DockerodeClient } from './dockerode-client';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('pinging the engine', () => {
  it('asks the version and the engine info (its runtimes) once in a short while across clients, and only whether the engine answers in between', async () => {
    const version = vi.spyOn(Docker.prototype, 'version');
    const info = vi.spyOn(Docker.prototype, 'info');
    const ping = vi.spyOn(Docker.prototype, 'ping');
    const first = await new DockerodeClient({ logger: silentLogger }).ping();
    const infosAfterFirst = info.mock.calls.length;
    // A start pings three times within a second or two, from two clients (the boot's and the core's).
    const second = await new DockerodeClient({ logger: silentLogger }).ping();
    const third = await new DockerodeClient({ logger: silentLogger }).ping();
    expect(version.mock.calls.length).toBeLessThanOrEqual(1);
    expect(ping.mock.calls.length + version.mock.calls.length).toBe(3);
    expect(info.mock.calls.length).toBe(infosAfterFirst);
    expect(infosAfterFirst).toBeLessThanOrEqual(1);
    expect(second).toEqual(first);
    expect(third.runtimes).toEqual(first.runtimes);
    expect(first.runtimes).toContain('runc');
    expect(first.version).toMatch(/^\d+\./);
  });
});
