import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../log';
import { DockerodeClient } from './dockerode-client';

/** An engine on a unix socket that answers what a ping asks, counting each path it is asked. */
async function fakeEngine(socketPath: string, version: { value: string }): Promise<{ server: Server; asked: Map<string, number> }> {
  const asked = new Map<string, number>();
  const server = createServer((request, response) => {
    const path = (request.url ?? '').replace(/^\/v[0-9.]+/, '').split('?')[0] ?? '';
    asked.set(path, (asked.get(path) ?? 0) + 1);
    response.setHeader('content-type', path === '/_ping' ? 'text/plain' : 'application/json');
    if (path === '/_ping') response.end('OK');
    else if (path === '/version') response.end(JSON.stringify({ Version: version.value, ApiVersion: '1.43', Os: 'linux', Components: [{ Name: 'Engine', Version: version.value }] }));
    else if (path === '/info') response.end(JSON.stringify({ Runtimes: { runc: {}, runsc: {} }, SecurityOptions: ['name=seccomp,profile=builtin'] }));
    else {
      response.statusCode = 404;
      response.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return { server, asked };
}

describe('pinging an engine (a fake one on a unix socket)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandpit-ping-unit-'));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  it('asks only whether the engine answers while its version is fresh, asks the version again after, and fails once the engine is gone', async () => {
    const socketPath = join(dir, 'engine.sock');
    const version = { value: '27.0.1' };
    const { server, asked } = await fakeEngine(socketPath, version);
    const client = (): DockerodeClient => new DockerodeClient({ host: `unix://${socketPath}`, logger: silentLogger });
    const first = await client().ping(2_000);
    expect(first).toMatchObject({ version: '27.0.1', apiVersion: '1.43', os: 'linux', runtimes: ['runc', 'runsc'], rootless: false });
    expect(asked.get('/version')).toBe(1);
    // A start pings again within a second or two, from another client: the engine is asked whether it answers, not its version.
    const second = await client().ping(2_000);
    expect(second).toEqual(first);
    expect(asked.get('/version')).toBe(1);
    expect(asked.get('/_ping')).toBe(1);

    // Three seconds later the version is asked again: an engine restarted as another version is seen.
    version.value = '28.1.0';
    const later = Date.now() + 3_000;
    vi.spyOn(Date, 'now').mockReturnValue(later);
    expect((await client().ping(2_000)).version).toBe('28.1.0');
    expect(asked.get('/version')).toBe(2);

    // Gone: a ping fails even while what it said is fresh.
    await client().ping(2_000);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await expect(client().ping(2_000)).rejects.toMatchObject({ code: 'DOCKER_UNAVAILABLE' });
  });
});
