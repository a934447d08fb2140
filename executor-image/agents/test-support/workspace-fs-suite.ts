// The `fs` and `reap` requests of ../PROTOCOL.md, tested the same way against both agents (called from
// ../python/agent.test.ts and ../javascript/agent.test.ts): the workspace is attacked the way sandboxed code
// would attack it (links to / and out of the workspace, links inside it, a directory swapped for a link while
// the agent walks, FIFOs), and the agent must never read, list or write anything outside it. The tests run as
// whoever runs vitest (root in CI), so an agent that followed a link would really reach the host's files.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FsResult, JsonLinesClient, Message, SpawnedAgent } from './agent-client';

/**
 * Wraps an agent command so that it runs on a 1 MiB tmpfs mounted over its workspace, in a user and mount
 * namespace of its own (nothing outside it sees the mount). Available where unprivileged user namespaces are.
 */
export function onSmallTmpfs(command: string[]): string[] {
  const mount = 'mount -t tmpfs -o size=1m,mode=0755 tmpfs "$SANDPIT_WORKSPACE" && exec "$@"';
  return ['unshare', '--user', '--map-root-user', '--mount', 'sh', '-c', mount, 'sh', ...command];
}

const canMountTmpfs = (() => {
  const dir = join(tmpdir(), `sandpit-tmpfs-probe-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir);
  try {
    return (
      spawnSync(onSmallTmpfs(['true'])[0]!, onSmallTmpfs(['true']).slice(1), {
        env: { ...process.env, SANDPIT_WORKSPACE: dir },
      }).status === 0
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

export interface WorkspaceFsSuite {
  /** Starts the agent in a fresh workspace, stray killing off (what `stop()` ends). */
  start: () => SpawnedAgent;
  /** Starts the agent with its command wrapped by onSmallTmpfs(). */
  startOnSmallTmpfs: () => SpawnedAgent;
  /** Code for the agent's language that prints a line, then keeps the main thread busy until interrupted. */
  busyCode: string;
}

function expectError(result: FsResult, code: string, text?: RegExp): void {
  expect(result.reply, JSON.stringify(result.reply)).toMatchObject({
    type: 'fs-error',
    code,
    message: expect.any(String) as unknown,
  });
  if (text) expect(result.reply.message).toMatch(text);
  expect(result.chunks).toEqual([]); // an error comes instead of the content, never after some of it
}

function mkfifo(path: string): void {
  expect(spawnSync('mkfifo', [path]).status).toBe(0);
}

/** Total size of the regular files under `dir`, never following links (what fs-usage's fileBytes counts). */
function fileBytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) total += fileBytesUnder(join(dir, entry.name));
    else if (entry.isFile()) total += lstatSync(join(dir, entry.name)).size;
  }
  return total;
}

export function describeWorkspaceFs(name: string, suite: WorkspaceFsSuite): void {
  describe(name, () => {
    let agent: SpawnedAgent;
    let client: JsonLinesClient;
    let ws: string;
    const outside = join(tmpdir(), `sandpit-fs-outside-${randomBytes(6).toString('hex')}`);
    /** A name in /tmp that only an agent writing through a link could create (removed after the suite if it did). */
    const escape = `sandpit-escape-${randomBytes(6).toString('hex')}`;

    beforeAll(() => {
      agent = suite.start();
      client = agent.client;
      ws = agent.workspace;
      mkdirSync(outside);
    });

    afterAll(() => {
      client.checkFraming();
      expect(agent.stderr()).toBe(''); // the agent logged no internal failure
      agent.stop();
      rmSync(outside, { recursive: true, force: true });
      rmSync(join('/tmp', escape), { recursive: true, force: true });
    });

    it('refuses a link to / anywhere in a path: read, list and write never reach the host', async () => {
      symlinkSync('/', join(ws, 'rootlink'));
      expectError(await client.readFile('rootlink/etc/passwd'), 'LINK', /"rootlink"/);
      expectError(await client.listDir('rootlink/etc'), 'LINK', /"rootlink"/);
      expectError(await client.listDir('rootlink'), 'LINK', /"rootlink"/);
      expectError(await client.readFile('rootlink'), 'LINK', /"rootlink"/);
      expectError(await client.writeFile(`rootlink/tmp/${escape}`, 'x'), 'LINK', /"rootlink"/);
      expect(existsSync(join('/tmp', escape))).toBe(false);
    });

    it('refuses links that climb out of the workspace or stay inside it', async () => {
      mkdirSync(join(ws, 'sub'));
      writeFileSync(join(ws, 'x'), 'top-level file');
      writeFileSync(join(ws, 'sub', 'inner.txt'), 'inner');
      symlinkSync('..', join(ws, 'sub', 'up'));
      expectError(await client.readFile('sub/up/x'), 'LINK', /"sub\/up"/);
      expectError(await client.listDir('sub/up'), 'LINK', /"sub\/up"/);
      symlinkSync('x', join(ws, 'file-link')); // to a file inside the workspace
      expectError(await client.readFile('file-link'), 'LINK', /"file-link"/);
      symlinkSync('sub', join(ws, 'dir-link')); // to a directory inside the workspace
      expectError(await client.readFile('dir-link/inner.txt'), 'LINK', /"dir-link"/);
      expectError(await client.listDir('dir-link'), 'LINK', /"dir-link"/);
      symlinkSync('does-not-exist', join(ws, 'dangling'));
      expectError(await client.readFile('dangling'), 'LINK', /"dangling"/);
      expectError(await client.writeFile('dangling', 'x'), 'LINK', /"dangling"/);
      expect(existsSync(join(ws, 'does-not-exist'))).toBe(false);
      // the real paths work
      expect((await client.readFile('sub/inner.txt')).data.toString()).toBe('inner');
    });

    it('never reads through a directory swapped for a link to / while it walks the path', async () => {
      mkdirSync(join(ws, 'race', 'real', 'etc'), { recursive: true });
      writeFileSync(join(ws, 'race', 'real', 'etc', 'passwd'), 'inside\n');
      symlinkSync('/', join(ws, 'race', 'lnk'));
      // `race/d` is by turns the real directory, missing, and a link to / (atomic renames, for 5 s at most).
      const swap =
        "const fs = require('fs'); process.chdir(process.argv[1]); const end = Date.now() + 5000; let n = 0;" +
        "while (Date.now() < end) { fs.renameSync('real', 'd'); fs.renameSync('d', 'real'); fs.renameSync('lnk', 'd'); fs.renameSync('d', 'lnk');" +
        " if (++n === 100) process.stdout.write('swapping\\n'); }";
      const swapper = spawn(process.execPath, ['-e', swap, join(ws, 'race')], { stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        await new Promise<void>((resolve) => swapper.stdout.once('data', () => resolve()));
        const reads = Array.from({ length: 300 }, () => client.readFile('race/d/etc/passwd'));
        const outcomes = await Promise.all(reads);
        for (const r of outcomes) {
          if (r.reply.type === 'fs-done') expect(r.data.toString()).toBe('inside\n');
          // refused; which code depends on what `d` was by then (ENOTDIR for a link opened with O_DIRECTORY,
          // and the lstat that names it a link may already see the real directory back)
          else expect(['LINK', 'NOT_FOUND', 'NOT_A_DIRECTORY']).toContain(r.reply.code);
        }
      } finally {
        swapper.kill('SIGKILL');
      }
    });

    it('answers a FIFO, a directory and missing files with errors at once, never blocking', async () => {
      mkdirSync(join(ws, 'special'));
      mkfifo(join(ws, 'special', 'fifo'));
      writeFileSync(join(ws, 'special', 'file.txt'), 'f');
      const started = performance.now();
      expectError(
        await client.fs('read', { path: 'special/fifo', maxBytes: 100 }, 2_000),
        'NOT_A_FILE',
        /"special\/fifo"/,
      );
      expectError(await client.fs('write', { path: 'special/fifo', data: 'eA==', last: true }, 2_000), 'NOT_A_FILE');
      expect(performance.now() - started).toBeLessThan(2_000);
      expect((await client.readFile('special/file.txt')).data.toString()).toBe('f'); // not stuck behind the FIFO
      expectError(await client.readFile('special'), 'NOT_A_FILE', /directory/);
      expectError(await client.writeFile('special', 'x'), 'NOT_A_FILE');
      expectError(await client.readFile('special/missing'), 'NOT_FOUND', /"special\/missing"/);
      expectError(await client.readFile('missing/file'), 'NOT_FOUND', /"missing"/);
      expectError(await client.listDir('missing'), 'NOT_FOUND');
      expectError(await client.readFile('special/file.txt/x'), 'NOT_A_DIRECTORY', /"special\/file.txt"/);
      expectError(await client.listDir('special/file.txt'), 'NOT_A_DIRECTORY');
      expectError(await client.writeFile('special/file.txt/x', 'x'), 'NOT_A_DIRECTORY');
    });

    it('refuses paths that are not plain workspace-relative paths', async () => {
      const bad = [
        '../x',
        '../../etc/passwd',
        '/etc/passwd',
        'a//b',
        'a/./b',
        'a/../b',
        '.',
        '..',
        'a/',
        '',
        'a\0b',
        `${'a/'.repeat(2049)}b`,
      ];
      for (const path of bad) {
        expectError(await client.readFile(path), 'INVALID_PATH');
        expectError(await client.writeFile(path, 'x'), 'INVALID_PATH');
      }
      for (const path of ['..', '/', '/etc', 'a//b', './a', 'a\0'])
        expectError(await client.listDir(path), 'INVALID_PATH');
      expectError(await client.fs('read', { path: 42, maxBytes: 10 }), 'INVALID_PATH');
      expect(existsSync(join(ws, 'a'))).toBe(false);
      expectError(await client.fs('chmod', { path: 'x' }), 'IO');
    });

    it('refuses a file larger than maxBytes without sending any of it', async () => {
      writeFileSync(join(ws, 'hundred.bin'), Buffer.alloc(100, 7));
      expectError(await client.readFile('hundred.bin', 99), 'TOO_LARGE', /100 bytes.*99 bytes/);
      const exact = await client.readFile('hundred.bin', 100);
      expect(exact.reply).toEqual({ type: 'fs-done', id: exact.id, size: 100 });
      expect(exact.data).toEqual(Buffer.alloc(100, 7));
    });

    it('writes a 3 MiB binary file in several chunks and reads it back in several, byte for byte', async () => {
      const content = randomBytes(3 * 1024 * 1024 + 17);
      const written = await client.writeFile('bin/blob.dat', content, { chunkBytes: 700 * 1024 });
      expect(written.reply).toEqual({ type: 'fs-done', id: written.id, size: content.length });
      expect(readFileSync(join(ws, 'bin', 'blob.dat')).equals(content)).toBe(true);
      const read = await client.readFile('bin/blob.dat', 4 * 1024 * 1024);
      expect(read.reply).toEqual({ type: 'fs-done', id: read.id, size: content.length });
      expect(read.chunks.length).toBeGreaterThanOrEqual(4);
      for (const chunk of read.chunks) expect(chunk.length).toBeLessThanOrEqual(1024 * 1024);
      expect(read.data.equals(content)).toBe(true);
      expect(read.messages.at(-1)?.type).toBe('fs-done');
      // an empty file: no fs-data at all
      expect((await client.writeFile('bin/empty', '')).reply).toMatchObject({ type: 'fs-done', size: 0 });
      const empty = await client.readFile('bin/empty');
      expect(empty.chunks).toEqual([]);
      expect(empty.reply).toMatchObject({ type: 'fs-done', size: 0 });
    });

    it('never writes through a link among the parents or as the file itself', async () => {
      symlinkSync('/tmp', join(ws, 't'));
      expectError(await client.writeFile(`t/${escape}`, 'x'), 'LINK', /"t"/);
      expectError(await client.writeFile(`t/${escape}/deeper/y`, 'x'), 'LINK', /"t"/);
      expectError(await client.writeFile(`t/${escape}`, 'x', { append: true }), 'LINK', /"t"/);
      expect(existsSync(join('/tmp', escape))).toBe(false);
      writeFileSync(join(outside, 'target.txt'), 'original');
      symlinkSync(join(outside, 'target.txt'), join(ws, 'target-link'));
      expectError(await client.writeFile('target-link', 'overwritten'), 'LINK', /"target-link"/);
      expectError(await client.writeFile('target-link', 'appended', { append: true }), 'LINK');
      mkdirSync(join(ws, 'w'));
      symlinkSync(outside, join(ws, 'w', 'out'));
      expectError(await client.writeFile('w/out/new.txt', 'x'), 'LINK', /"w\/out"/);
      expect(readdirSync(outside)).toEqual(['target.txt']);
      expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('original');
      // a write whose first chunk failed ignores its later chunks: one answer, nothing written
      const id = 'chunked-failure';
      client.send({ type: 'fs', id, op: 'write', path: `t/${escape}`, data: 'YWJj', last: false });
      client.send({ type: 'fs', id, op: 'write', path: `t/${escape}`, data: 'ZGVm', last: true });
      writeFileSync(join(ws, 'marker.txt'), 'm');
      const marker = await client.readFile('marker.txt'); // answered after both chunks
      expect(marker.reply.type).toBe('fs-done');
      expect(client.received.filter((r) => r.msg.id === id).map((r) => r.msg.code)).toEqual(['LINK']);
      expect(existsSync(join('/tmp', escape))).toBe(false);
    });

    it('creates missing parents, truncates, and appends', async () => {
      const first = await client.writeFile('made/deep/er/f.txt', 'one');
      expect(first.reply).toMatchObject({ type: 'fs-done', size: 3 });
      expect(statSync(join(ws, 'made')).mode & 0o777).toBe(0o755);
      expect(statSync(join(ws, 'made', 'deep', 'er')).mode & 0o777).toBe(0o755);
      expect(statSync(join(ws, 'made', 'deep', 'er', 'f.txt')).mode & 0o777).toBe(0o644);
      expect((await client.writeFile('made/deep/er/f.txt', 'two!')).reply).toMatchObject({ size: 4 });
      expect((await client.writeFile('made/deep/er/f.txt', '+3', { append: true })).reply).toMatchObject({ size: 6 });
      expect((await client.writeFile('made/deep/er/f.txt', 'ab', { append: true, chunkBytes: 1 })).reply).toMatchObject(
        { size: 8 },
      );
      expect(readFileSync(join(ws, 'made', 'deep', 'er', 'f.txt'), 'utf8')).toBe('two!+3ab');
      expect((await client.writeFile('made/new-by-append.txt', 'a', { append: true })).reply).toMatchObject({
        size: 1,
      });
      expectError(await client.fs('write', { path: 'made/bad.txt', data: 'not base64!', last: true }), 'IO');
    });

    it('lists one directory level, sorted, reporting links as links and never following them', async () => {
      mkdirSync(join(ws, 'listing', 'a-dir'), { recursive: true });
      writeFileSync(join(ws, 'listing', 'a-dir', 'hidden-inside.txt'), 'x');
      writeFileSync(join(ws, 'listing', 'b.txt'), 'abc');
      symlinkSync('/etc', join(ws, 'listing', 'c-link'));
      symlinkSync('a-dir', join(ws, 'listing', 'd-link'));
      mkfifo(join(ws, 'listing', 'e-fifo'));
      const r = await client.listDir('listing');
      expect(r.reply).toMatchObject({ type: 'fs-list', truncated: false });
      const entries = r.reply.entries as Array<Message & { name: string; size: number; mtime: number }>;
      expect(entries.map((e) => [e.name, e.type])).toEqual([
        ['a-dir', 'directory'],
        ['b.txt', 'file'],
        ['c-link', 'symlink'],
        ['d-link', 'symlink'],
        ['e-fifo', 'other'],
      ]);
      const b = entries.find((e) => e.name === 'b.txt')!;
      expect(b.size).toBe(3);
      expect(Math.abs(b.mtime - statSync(join(ws, 'listing', 'b.txt')).mtimeMs / 1000)).toBeLessThan(0.01);
      const root = await client.listDir('');
      expect((root.reply.entries as Array<{ name: string }>).map((e) => e.name)).toContain('listing');
    });

    it('lists at most 5,000 entries, the first by name, and says it truncated', async () => {
      mkdirSync(join(ws, 'many'));
      const names = Array.from({ length: 5003 }, (_, i) => `f${String(i).padStart(5, '0')}`);
      writeFileSync(join(ws, 'many-base'), '');
      // hard links of one empty file: regular files, made far faster than new files
      for (const n of [...names].reverse()) linkSync(join(ws, 'many-base'), join(ws, 'many', n));
      const r = await client.listDir('many');
      expect(r.reply.truncated).toBe(true);
      expect((r.reply.entries as Array<{ name: string }>).map((e) => e.name)).toEqual(names.slice(0, 5000));
    });

    it('reports disk usage, with the bytes of the regular files it holds (links not followed)', async () => {
      const first = await client.usage();
      expect(first.reply).toMatchObject({ type: 'fs-usage' });
      const { usedBytes, totalBytes, freeBytes, fileBytes } = first.reply as unknown as Record<
        'usedBytes' | 'totalBytes' | 'freeBytes' | 'fileBytes',
        number
      >;
      for (const n of [usedBytes, totalBytes, freeBytes, fileBytes]) expect(Number.isInteger(n) && n >= 0).toBe(true);
      expect(totalBytes).toBeGreaterThan(0);
      expect(usedBytes).toBeLessThanOrEqual(totalBytes);
      expect(freeBytes).toBeLessThanOrEqual(totalBytes);
      expect(fileBytes).toBe(fileBytesUnder(ws));
      await client.writeFile('usage/more.bin', Buffer.alloc(12_345));
      expect((await client.usage()).reply.fileBytes).toBe(fileBytes + 12_345);
    });

    it('answers file requests while an execution keeps the agent busy', async () => {
      writeFileSync(join(ws, 'during.txt'), 'while busy');
      const id = client.start(suite.busyCode);
      await client.waitFor((m) => m.id === id && m.type === 'stream');
      expect((await client.readFile('during.txt')).data.toString()).toBe('while busy');
      expect((await client.listDir('')).reply.type).toBe('fs-list');
      expect(client.received.some((r) => r.msg.id === id && r.msg.type === 'done')).toBe(false);
      client.send({ type: 'interrupt', id });
      expect((await client.collect(id)).done.status).toBe('interrupted');
    });

    it.skipIf(!canMountTmpfs)(
      'says NO_SPACE when the workspace is full, and ignores the rest of that write, undoing it (on a 1 MiB tmpfs; skipped without unshare)',
      async () => {
        const small = suite.startOnSmallTmpfs();
        try {
          const usage = await small.client.usage();
          expect(usage.reply).toMatchObject({ type: 'fs-usage', totalBytes: 1024 * 1024, fileBytes: 0 });
          const full = await small.client.writeFile('big.bin', randomBytes(2 * 1024 * 1024), {
            chunkBytes: 256 * 1024,
          });
          expectError(full, 'NO_SPACE', /No space left on device/);
          expect(small.client.received.filter((r) => r.msg.id === full.id)).toHaveLength(1); // one answer for 8 chunks
          // the failed write left the file as it was when opened (empty): the disk is not left full
          expect((await small.client.usage()).reply).toMatchObject({ fileBytes: 0 });
          expect((await small.client.writeFile('kept.txt', 'kept')).reply).toMatchObject({ type: 'fs-done', size: 4 });
          const append = await small.client.writeFile('kept.txt', randomBytes(2 * 1024 * 1024), {
            append: true,
            chunkBytes: 512 * 1024,
          });
          expectError(append, 'NO_SPACE', /No space left on device/);
          expect((await small.client.readFile('kept.txt')).data.toString()).toBe('kept'); // the failed append is undone
          expect((await small.client.writeFile('big.bin', 'fits now')).reply).toMatchObject({
            type: 'fs-done',
            size: 8,
          });
          expect((await small.client.readFile('big.bin')).data.toString()).toBe('fits now');
          expect(small.stderr()).toBe('');
        } finally {
          small.stop();
        }
      },
    );

    it('answers reap with killed 0 and kills nothing where stray killing is not allowed', async () => {
      const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
      try {
        expect(await client.reap()).toMatchObject({ type: 'reaped', killed: 0 });
        expect(sleeper.exitCode).toBeNull();
        expect(() => process.kill(sleeper.pid!, 0)).not.toThrow();
      } finally {
        sleeper.kill('SIGKILL');
      }
    });
  });
}
