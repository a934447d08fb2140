import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { instanceFilePath } from '../core/instance-file';
import { tokenPath } from '../core/connect/token';
import { findRunningInstance } from './find-instance';

/** This machine's first non-loopback IPv4 address: a URL there is reachable, but not loopback. */
const outward = Object.values(networkInterfaces())
  .flat()
  .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address;

describe('findRunningInstance', () => {
  let home: string;
  let server: Server;
  let port: number;
  /** Requests the fake instance received, with their authorization header. */
  let seen: Array<{ url: string; authorization?: string }>;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-find-'));
    await writeFile(tokenPath(home), 'secret-token\n', { mode: 0o600 });
    seen = [];
    server = createServer((request, response) => {
      seen.push({ url: request.url ?? '', authorization: request.headers.authorization });
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ ok: true }));
    });
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(home, { recursive: true, force: true });
  });

  const record = (url: string): Promise<void> => writeFile(instanceFilePath(home), JSON.stringify({ url, pid: process.pid, startedAt: new Date().toISOString() }));

  it('bridges to a live loopback instance that answers /health', async () => {
    await record(`http://127.0.0.1:${port}`);
    expect(await findRunningInstance(home)).toEqual({ url: `http://127.0.0.1:${port}`, token: 'secret-token' });
  });

  it.each([
    ['a non-loopback address', () => (outward ? `http://${outward}:${port}` : undefined)],
    ['a URL with a path', () => `http://127.0.0.1:${port}/elsewhere`],
    ['a URL with credentials', () => `http://user@127.0.0.1:${port}`],
    ['https', () => `https://127.0.0.1:${port}`],
  ])('never trusts instance.json naming %s: no request goes there, the core is hosted in-process', async (_what, url) => {
    const target = url();
    if (target === undefined) return; // no outward interface on this machine
    await record(target);
    expect(await findRunningInstance(home)).toBeUndefined();
    expect(seen).toEqual([]);
  });
});
