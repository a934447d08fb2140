import { createHash } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import type { ErrorCode } from '../../shared/api/errors';
import { ArtifactStore } from './artifact-store';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100, 1)]);
const sha = (content: Buffer | string): string => createHash('sha256').update(content).digest('hex');
const isPosix = process.platform !== 'win32';

async function rejection(promise: Promise<unknown>, code: ErrorCode): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (!isSandpitError(error, code)) throw error;
    return error.message;
  }
  throw new Error(`expected ${code}`);
}

/** Every file and folder under root, as paths relative to it. */
async function walk(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true });
  return entries.map((entry) => entry.toString()).sort();
}

let parent: string;
let dir: string;
let clock: number;
const now = (): Date => new Date(Date.UTC(2026, 0, 1) + (clock += 1_000));

beforeEach(async () => {
  parent = await mkdtemp(join(tmpdir(), 'sandpit-artifacts-'));
  dir = join(parent, 'artifacts');
  clock = 0;
});

afterEach(async () => {
  await rm(parent, { recursive: true, force: true });
});

describe('ArtifactStore', () => {
  it('puts and gets a blob by its sha256', async () => {
    const store = new ArtifactStore({ dir, now });
    const artifact = await store.put(PNG, { path: '/workspace/out//plot.png', sessionId: 's1', executionId: 'e1' });
    expect(artifact).toEqual({
      sha256: sha(PNG),
      path: 'out/plot.png',
      mime: 'image/png',
      size: PNG.length,
      sessionId: 's1',
      executionId: 'e1',
      createdAt: '2026-01-01T00:00:01.000Z',
    });
    expect(store.pathOf(artifact.sha256)).toBe(join(dir, 'blobs', artifact.sha256.slice(0, 2), artifact.sha256));

    const got = await store.get(artifact.sha256);
    expect(got.artifact).toEqual(artifact);
    expect(got.content.equals(PNG)).toBe(true);

    const given = await store.put(Buffer.from('<b>hi</b>'), { path: 'x.bin', sessionId: 's1', mime: 'text/html' });
    expect(given.mime).toBe('text/html');
    expect(given.executionId).toBeUndefined();
  });

  it('keeps one blob for the same content and one index line per put', async () => {
    const store = new ArtifactStore({ dir, now });
    const content = Buffer.from('same bytes');
    const first = await store.put(content, { path: 'a.txt', sessionId: 's1' });
    const second = await store.put(content, { path: 'b.txt', sessionId: 's2' });
    expect(second.sha256).toBe(first.sha256);

    const blobs = (await walk(join(dir, 'blobs'))).filter((entry) => entry.includes(first.sha256));
    expect(blobs).toHaveLength(1);
    const lines = (await readFile(join(dir, 'index.jsonl'), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect((await store.get(first.sha256)).artifact.path).toBe('b.txt'); // the newest capture
  });

  it('lists newest first, by session, with a limit', async () => {
    const store = new ArtifactStore({ dir, now });
    for (let index = 0; index < 5; index += 1) {
      await store.put(Buffer.from(`file ${index}`), {
        path: `f${index}.txt`,
        sessionId: index % 2 === 0 ? 'even' : 'odd',
      });
    }
    expect((await store.list()).map((a) => a.path)).toEqual(['f4.txt', 'f3.txt', 'f2.txt', 'f1.txt', 'f0.txt']);
    expect((await store.list({ sessionId: 'even' })).map((a) => a.path)).toEqual(['f4.txt', 'f2.txt', 'f0.txt']);
    expect((await store.list({ sessionId: 'odd', limit: 1 })).map((a) => a.path)).toEqual(['f3.txt']);
    expect(await store.list({ sessionId: 'none' })).toEqual([]);
    await rejection(store.list({ limit: 0 }), 'INVALID_INPUT');
    await rejection(store.list({ limit: 1.5 }), 'INVALID_INPUT');
    expect(await new ArtifactStore({ dir: join(parent, 'empty') }).list()).toEqual([]);
  });

  it('refuses malformed ids and reports absent ones', async () => {
    const store = new ArtifactStore({ dir, now });
    const artifact = await store.put(Buffer.from('x'), { path: 'x', sessionId: 's' });
    for (const bad of [
      '',
      '../../../../etc/passwd',
      artifact.sha256.toUpperCase(),
      artifact.sha256.slice(0, 63),
      `${artifact.sha256}0`,
      `${artifact.sha256.slice(0, 62)}/x`,
      `${artifact.sha256.slice(0, 63)}\n`,
      'z'.repeat(64),
    ]) {
      await rejection(store.get(bad), 'INVALID_INPUT');
      expect(() => store.pathOf(bad)).toThrow(/64 lowercase hexadecimal/);
    }
    await rejection(store.get(sha('never stored')), 'NOT_FOUND');
  });

  it('reports a missing or corrupted blob', async () => {
    const store = new ArtifactStore({ dir, now });
    const gone = await store.put(Buffer.from('gone'), { path: 'gone', sessionId: 's' });
    await rm(store.pathOf(gone.sha256));
    await rejection(store.get(gone.sha256), 'NOT_FOUND');

    const bad = await store.put(Buffer.from('good'), { path: 'bad', sessionId: 's' });
    await writeFile(store.pathOf(bad.sha256), 'evil');
    await rejection(store.get(bad.sha256), 'INTERNAL');
  });

  it('refuses bad metadata before writing anything', async () => {
    const store = new ArtifactStore({ dir, now });
    await rejection(store.put(Buffer.from('x'), { path: '../escape', sessionId: 's' }), 'INVALID_INPUT');
    await rejection(store.put(Buffer.from('x'), { path: '/etc/passwd', sessionId: 's' }), 'INVALID_INPUT');
    await rejection(store.put(Buffer.from('x'), { path: 'ok', sessionId: '' }), 'INVALID_INPUT');
    expect(await walk(parent)).toEqual([]);
  });

  it('writes only under its folder, with private modes and no temp files left', async () => {
    const store = new ArtifactStore({ dir, now });
    const artifacts = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        store.put(Buffer.from(`content ${index % 10}`), { path: `out/${index}.txt`, sessionId: 's' }),
      ),
    );
    const entries = await walk(parent);
    for (const entry of entries) expect(entry === 'artifacts' || entry.startsWith(`artifacts${'/'}`)).toBe(true);
    expect(entries.filter((entry) => entry.includes('.tmp-'))).toEqual([]);
    const blobFiles = entries.filter((entry) => /[a-f0-9]{64}$/.test(entry));
    expect(blobFiles).toHaveLength(10);

    if (isPosix) {
      for (const entry of entries) {
        const info = await stat(join(parent, entry));
        expect(info.mode & 0o777).toBe(info.isDirectory() ? 0o700 : 0o600);
      }
    }
    const listed = await store.list();
    expect(listed).toHaveLength(20);
    expect(new Set(listed.map((a) => a.path))).toEqual(new Set(artifacts.map((a) => a.path)));
    expect(relative(dir, store.pathOf(artifacts[0]!.sha256)).startsWith('..')).toBe(false);
  });

  it('tolerates a truncated last line and keeps later records', async () => {
    const store = new ArtifactStore({ dir, now });
    await store.put(Buffer.from('one'), { path: 'one', sessionId: 's' });
    await appendFile(join(dir, 'index.jsonl'), '{"sha256":"abc","path":"cut sho');
    expect((await store.list()).map((a) => a.path)).toEqual(['one']);
    await appendFile(join(dir, 'index.jsonl'), 'not json at all\n');
    expect((await store.list()).map((a) => a.path)).toEqual(['one']);

    await appendFile(join(dir, 'index.jsonl'), '{"sha256":"cut again');
    await store.put(Buffer.from('two'), { path: 'two', sessionId: 's' });
    expect((await store.list()).map((a) => a.path)).toEqual(['two', 'one']);
    expect((await new ArtifactStore({ dir }).list()).map((a) => a.path)).toEqual(['two', 'one']);
  });

  it('sees what another store on the same folder wrote, and a replaced index', async () => {
    const first = new ArtifactStore({ dir, now });
    const second = new ArtifactStore({ dir, now });
    await first.put(Buffer.from('a'), { path: 'a', sessionId: 's' });
    expect((await second.list()).map((a) => a.path)).toEqual(['a']);
    await second.put(Buffer.from('b'), { path: 'b', sessionId: 's' });
    expect((await first.list()).map((a) => a.path)).toEqual(['b', 'a']);

    await rm(join(dir, 'index.jsonl'));
    expect(await first.list()).toEqual([]);
    await second.put(Buffer.from('c'), { path: 'c', sessionId: 's' });
    expect((await first.list()).map((a) => a.path)).toEqual(['c']);
  });

  it.skipIf(!isPosix)('refuses to follow a link that leads out of the store (POSIX links: skipped on Windows)', async () => {
    const outside = join(parent, 'outside');
    await mkdir(outside);
    const content = Buffer.from('escape attempt');
    const hash = sha(content);
    await mkdir(join(dir, 'blobs'), { recursive: true });
    await symlink(outside, join(dir, 'blobs', hash.slice(0, 2)));
    const store = new ArtifactStore({ dir, now });
    await rejection(store.put(content, { path: 'x', sessionId: 's' }), 'INTERNAL');
    expect(await readdir(outside)).toEqual([]);
  });

  it.skipIf(!isPosix)('never appends to an index that is a link (POSIX links: skipped on Windows)', async () => {
    const outside = join(parent, 'outside.jsonl');
    await writeFile(outside, '');
    await mkdir(dir, { recursive: true });
    await symlink(outside, join(dir, 'index.jsonl'));
    const store = new ArtifactStore({ dir, now });
    await expect(store.put(Buffer.from('x'), { path: 'x', sessionId: 's' })).rejects.toMatchObject({ code: 'ELOOP' });
    expect(await readFile(outside, 'utf8')).toBe('');
  });
});
