import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tokenPath } from '../core/connect/token';
import { lockHome } from '../core/home-lock';
import { writeInstanceFile } from '../core/instance-file';
import {
  checkDataFolder,
  checkNode,
  checkPort,
  checkRunningSandpit,
  findDataFolderOwner,
  checkTokenFile,
  formatChecks,
  probeSandpitHealth,
} from './doctor-checks';

describe('checkNode', () => {
  it('refuses Node 23 with how to fix it', () => {
    const result = checkNode('23.11.0');
    expect(result.ok).toBe(false);
    expect(result.detail).toContain('23.11.0');
    expect(result.fix).toContain('Node.js 24');
  });

  it.each(['24.0.0', '24.21.0', '25.1.0'])('accepts Node %s', (version) => {
    const result = checkNode(version);
    expect(result).toEqual({ name: 'Node.js', ok: true, detail: `v${version}` });
  });

  it('checks the running Node by default', () => {
    expect(checkNode().detail).toBe(`v${process.versions.node}`);
  });
});

describe('checkDataFolder', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandpit-doctor-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('accepts a writable folder and leaves nothing behind', async () => {
    const result = await checkDataFolder(dir);
    expect(result).toEqual({ name: 'Data folder', ok: true, detail: dir });
    expect(await readdir(dir)).toEqual([]);
  });

  it('creates a missing folder', async () => {
    const home = join(dir, 'a', 'b');
    expect((await checkDataFolder(home)).ok).toBe(true);
    expect(await readdir(join(dir, 'a'))).toEqual(['b']);
  });

  it('refuses a path under a file, with the path, the reason and a fix', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    const home = join(file, 'home');
    const result = await checkDataFolder(home);
    expect(result.ok).toBe(false);
    expect(result.detail).toContain(home);
    expect(result.detail).toMatch(/ENOTDIR|EEXIST/);
    expect(result.fix).toContain('SANDPIT_HOME');
  });
});

describe('formatChecks', () => {
  it('prints one line per check, and the fix under a failed one', () => {
    const text = formatChecks([
      { name: 'Node.js', ok: true, detail: 'v24.1.0' },
      { name: 'Docker engine', ok: false, detail: 'not running', fix: 'Start Docker.' },
      { name: 'Sandbox images', ok: false, detail: 'missing' },
    ]);
    expect(text).toBe(
      ['✓ Node.js: v24.1.0', '✗ Docker engine: not running', '    → Start Docker.', '✗ Sandbox images: missing'].join(
        '\n',
      ),
    );
  });

  it('prints nothing for no checks', () => {
    expect(formatChecks([])).toBe('');
  });
});

describe('checkTokenFile', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandpit-doctor-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is fine when absent: it is made on first start', async () => {
    const result = await checkTokenFile(dir);
    expect(result).toEqual({
      name: 'Access token',
      ok: true,
      detail: `${tokenPath(dir)} will be created on first start`,
    });
  });

  it.runIf(process.platform !== 'win32')(
    'accepts an owner-only file and refuses a looser one with the chmod to run',
    async () => {
      await writeFile(tokenPath(dir), 'x'.repeat(43), { mode: 0o600 });
      expect((await checkTokenFile(dir)).ok).toBe(true);
      await chmod(tokenPath(dir), 0o644);
      const loose = await checkTokenFile(dir);
      expect(loose.ok).toBe(false);
      expect(loose.detail).toContain('644');
      expect(loose.fix).toBe(`chmod 600 ${tokenPath(dir)}`);
    },
  );

  it('refuses a token path that is not a file', async () => {
    await mkdir(tokenPath(dir));
    const result = await checkTokenFile(dir);
    expect(result.ok).toBe(false);
    expect(result.fix).toContain('Remove');
  });
});

describe('checkPort', () => {
  let server: Server | undefined;

  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  async function listen(answer: (path: string) => { status: number; body: string }): Promise<number> {
    server = createServer((req, res) => {
      const { status, body } = answer(req.url ?? '/');
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
    return (server.address() as AddressInfo).port;
  }

  it('is fine when the port is free', async () => {
    const port = await listen(() => ({ status: 200, body: '{}' }));
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    expect(await checkPort(port)).toEqual({ name: 'HTTP port', ok: true, detail: `127.0.0.1:${port} is free` });
  });

  it('is fine when a healthy Sandpit holds it', async () => {
    const port = await listen(() => ({
      status: 200,
      body: JSON.stringify({ ok: true, engine: 'up', version: '0.1.0' }),
    }));
    expect(await probeSandpitHealth(port)).toEqual({ version: '0.1.0', engine: 'up' });
    const result = await checkPort(port);
    expect(result.ok).toBe(true);
    expect(result.detail).toContain('running Sandpit 0.1.0');
  });

  it('is not fine when another program holds it, and says how to move', async () => {
    const port = await listen(() => ({ status: 404, body: 'nope' }));
    const result = await checkPort(port);
    expect(result.ok).toBe(false);
    expect(result.detail).toContain('another program');
    expect(result.fix).toContain('--port');
  });
});

describe('the Sandpit running on the data folder', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-doctor-owner-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('names the running instance by process, command and address, and the free default port says where it serves', async () => {
    const holder = { host: hostname(), pid: process.pid, processStart: '', instanceId: 'i-1', command: 'sandpit serve --port 7522', startedAt: '2026-12-02T17:00:00Z' };
    const lock = await lockHome(home, holder, () => false);
    await writeInstanceFile(home, { url: 'http://127.0.0.1:7522', pid: process.pid, startedAt: holder.startedAt });
    try {
      const running = await findDataFolderOwner(home);
      expect(running).toEqual({ pid: process.pid, command: 'sandpit serve --port 7522', startedAt: holder.startedAt, url: 'http://127.0.0.1:7522' });
      expect(checkRunningSandpit(home, running).detail).toBe(
        `process ${process.pid} (sandpit serve --port 7522, serving http://127.0.0.1:7522), started 2026-12-02T17:00:00Z, uses the data folder ${home}; "sandpit mcp" connects to it`,
      );
      const port = await freePort();
      expect((await checkPort(port, undefined, running)).detail).toBe(`127.0.0.1:${port} is free (the running Sandpit, process ${process.pid}, serves http://127.0.0.1:7522)`);
    } finally {
      await lock.release();
    }
  });

  it('says none runs when the lock is gone or its process has died', async () => {
    expect(await findDataFolderOwner(home)).toBeUndefined();
    expect(checkRunningSandpit(home, undefined).detail).toBe(`none runs on the data folder ${home}`);
    // A lock left by a dead process (pid beyond any live one) names no running Sandpit.
    await writeFile(join(home, 'owner.lock'), `${JSON.stringify({ host: hostname(), pid: 2 ** 22 + 17, processStart: '', instanceId: 'x', command: 'sandpit mcp', startedAt: 'then' })}\n`);
    expect(await findDataFolderOwner(home)).toBeUndefined();
  });
});

/** A port nothing listens on (taken and let go). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
