import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseTar } from './safe-tar';
import { AsyncQueue } from '../util/async-queue';
import { streamTar } from './stream-tar';
import type { StreamFile } from './stream-tar';

const CAPS = { maxFileBytes: 4 * 1024 * 1024, maxTotalBytes: 16 * 1024 * 1024 };

function file(path: string, content: Buffer | string): StreamFile {
  const bytes = Buffer.from(content);
  return { path, size: bytes.length, load: () => Promise.resolve(bytes) };
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('streamTar', () => {
  it('writes an archive our parser and GNU tar both read back: folders first, odd and long names, every byte', async () => {
    const long = `${'deep/'.repeat(30)}${'n'.repeat(120)}.txt`;
    const files = [
      file('a.txt', 'alpha'),
      file('data/x.bin', Buffer.alloc(3 * 1024 * 1024 + 7, 9)),
      file('ünïcödé and spaces.txt', 'odd'),
      file(long, 'long'),
      file('empty', ''),
    ];
    const archive = await bytesOf(streamTar(files, CAPS));
    const parsed = await parseTar(archive, { ...CAPS, maxEntries: 100, allowDirectories: true });
    expect(parsed.map((f) => [f.path, f.content.length, f.mode])).toEqual([
      ['a.txt', 5, 0o644],
      ['data/x.bin', 3 * 1024 * 1024 + 7, 0o644],
      ['ünïcödé and spaces.txt', 3, 0o644],
      [long, 4, 0o644],
      ['empty', 0, 0o644],
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'stream-tar-'));
    try {
      execFileSync('tar', ['--extract', '--file=-', '--directory', dir], { input: archive });
      expect(readFileSync(join(dir, 'ünïcödé and spaces.txt'), 'utf8')).toBe('odd');
      expect(readFileSync(join(dir, long), 'utf8')).toBe('long');
      expect(readFileSync(join(dir, 'data/x.bin')).equals(Buffer.alloc(3 * 1024 * 1024 + 7, 9))).toBe(true);
      expect(readdirSync(dir).sort()).toEqual(['a.txt', 'data', 'deep', 'empty', 'ünïcödé and spaces.txt']);
      const listed = execFileSync('tar', ['-tvf', '-'], { input: archive, encoding: 'utf8' });
      expect(listed).toMatch(/^drwxr-xr-x 10001\/10001\s+0 .* data\/$/m);
      expect(listed).toMatch(/^-rw-r--r-- 10001\/10001\s+5 .* a\.txt$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses bad names, clashes and sizes over the caps before writing anything (nothing is loaded)', () => {
    let loads = 0;
    const counted = (path: string, size: number): StreamFile => ({ path, size, load: () => ((loads += 1), Promise.resolve(Buffer.alloc(size))) });
    expect(() => streamTar([counted('../out', 1)], CAPS)).toThrow(/\.\./);
    expect(() => streamTar([counted('a', 1), counted('a', 1)], CAPS)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(() => streamTar([counted('a', 1), counted('a/b', 1)], CAPS)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(() => streamTar([counted('big', CAPS.maxFileBytes + 1)], CAPS)).toThrow(/over the 4194304 byte limit/);
    expect(() => streamTar([counted('a', 3 * 1024 * 1024), counted('b', 3 * 1024 * 1024), counted('c', 3 * 1024 * 1024), counted('d', 3 * 1024 * 1024), counted('e', 3 * 1024 * 1024), counted('f', 3 * 1024 * 1024)], CAPS)).toThrow(/add up to more than 16777216 bytes/);
    expect(loads).toBe(0);
  });

  it('loads files as they are written, a few ahead, and ends with an error when a file is not the size it was said to be', async () => {
    let inFlight = 0;
    let most = 0;
    const slow = (path: string, size: number, actual = size): StreamFile => ({
      path,
      size,
      load: async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
        return Buffer.alloc(actual, 1);
      },
    });
    const many = Array.from({ length: 20 }, (_, i) => slow(`f${i}`, 1000));
    const archive = await bytesOf(streamTar(many, { ...CAPS, readAhead: 3 }));
    expect((await parseTar(archive, { ...CAPS, maxEntries: 100 })).length).toBe(20);
    expect(most).toBeLessThanOrEqual(3);
    await expect(bytesOf(streamTar([slow('ok', 10), slow('liar', 10, 11)], CAPS))).rejects.toThrow('File "liar" is 11 bytes, not the 10 it was said to be');
  });

  it('writes files that come one by one as they come (a fork), checking each then: a clash or a failed source ends the stream', async () => {
    const queue = new AsyncQueue<StreamFile>();
    const stream = streamTar(queue, CAPS);
    const reading = bytesOf(stream);
    queue.push(file('one.txt', 'first'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    queue.push(file('sub/two.txt', 'second'));
    queue.end();
    const entries = await parseTar(await reading, { ...CAPS, maxEntries: 10, allowDirectories: true });
    expect(entries.map((e) => [e.path, e.content.toString()])).toEqual([
      ['one.txt', 'first'],
      ['sub/two.txt', 'second'],
    ]);

    const clash = new AsyncQueue<StreamFile>();
    const clashing = bytesOf(streamTar(clash, CAPS));
    clash.push(file('a', 'x'));
    clash.push(file('a/b', 'y'));
    clash.end();
    await expect(clashing).rejects.toMatchObject({ code: 'INVALID_INPUT' });

    const failing = new AsyncQueue<StreamFile>();
    const failed = bytesOf(streamTar(failing, CAPS));
    failing.push(file('a', 'x'));
    failing.fail(new Error('the snapshot could not read the workspace'));
    await expect(failed).rejects.toThrow('the snapshot could not read the workspace');
  });
});
