import { createHash, randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../shared/domain/limits';
import type { SnapshotManifest } from './snapshot-store';
import { SnapshotStore } from './snapshot-store';
import { ReusedBuffers } from '../util/reused-buffers';

const execFileAsync = promisify(execFile);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'snapshot-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function blobCount(): Promise<number> {
  let n = 0;
  for (const prefix of await readdir(join(dir, 'objects')).catch(() => [] as string[])) n += (await readdir(join(dir, 'objects', prefix))).length;
  return n;
}

function manifest(id: string, files: Array<{ sha256: string; size: number }>, history: { sha256: string; size: number }): SnapshotManifest {
  return {
    version: 1,
    snapshot: {
      id, name: id, createdAt: new Date().toISOString(), sessionId: 'ses-1', sessionName: 'Python 1', language: 'python', image: 'img', limits: DEFAULT_LIMITS,
      isolation: 'standard', files: files.length, fileBytes: 0, packages: [], packageBytes: 0, runs: 0, historyComplete: true, sizeBytes: 0, addedBytes: 0, skipped: [], sharedFoldersLeftOut: [], reviewFolders: [], shared: true,
    },
    files: files.map((f, i) => ({ path: `f${i}`, ...f })),
    history,
  };
}

describe('SnapshotStore', () => {
  it('stores the same bytes once, and reads them back checked against their sha256 once their snapshot is saved', async () => {
    const store = new SnapshotStore(dir);
    const hold = new Set<string>();
    const a = await store.put(Buffer.from('same'), hold);
    const b = await store.put(Buffer.from('same'), hold);
    // what it takes on disk: at least its bytes (whole blocks of the file system)
    expect(a.added).toBeGreaterThanOrEqual(4);
    expect(b).toEqual({ sha256: a.sha256, size: 4, added: 0 });
    expect(await blobCount()).toBe(1);
    await store.save(manifest('snap-aaaaaaaaaaaaaaaa', [a], a));
    store.release(hold);
    expect((await store.read(a.sha256)).toString()).toBe('same');
    await expect(store.read('0'.repeat(64))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a blob edited on disk after it was written or read, even with its size and mtime put back (the same core, and the next)', async () => {
    const store = new SnapshotStore(dir);
    const hold = new Set<string>();
    const a = await store.put(Buffer.from('original bytes'), hold);
    const b = await store.put(Buffer.from('other bytes of b'), hold);
    await store.save(manifest('snap-bbbbbbbbbbbbbbbb', [a, b], a));
    store.release(hold);
    // read once (b): known good since; a is known good from its write
    expect((await store.read(b.sha256)).toString()).toBe('other bytes of b');
    // the read a restore makes: into buffers used again once sent
    expect((await store.read(b.sha256, new ReusedBuffers())).toString()).toBe('other bytes of b');
    for (const blob of [a, b]) {
      const path = join(dir, 'objects', blob.sha256.slice(0, 2), blob.sha256);
      const before = await stat(path, { bigint: true });
      await writeFile(path, Buffer.from('X'.repeat(blob.size)));
      // its mtime put back to the nanosecond (GNU touch): only its change time, which no one can set, still shows the edit
      const ns = before.mtimeNs % 1_000_000_000n;
      await execFileAsync('touch', ['-m', '-d', `@${before.mtimeNs / 1_000_000_000n}.${ns.toString().padStart(9, '0')}`, path]);
      expect((await stat(path, { bigint: true })).mtimeNs).toBe(before.mtimeNs);
      await expect(store.read(blob.sha256)).rejects.toThrow(/was changed on disk/);
      await expect(store.read(blob.sha256)).rejects.toMatchObject({ code: 'INTERNAL' });
      await expect(store.read(blob.sha256, new ReusedBuffers())).rejects.toMatchObject({ code: 'INTERNAL' });
      // and by a core that starts after the edit
      await expect(new SnapshotStore(dir).read(blob.sha256)).rejects.toMatchObject({ code: 'INTERNAL' });
      // cut short: fewer bytes than were stored, read into a buffer larger than the file
      await writeFile(path, Buffer.from('X'));
      await expect(store.read(blob.sha256, new ReusedBuffers())).rejects.toMatchObject({ code: 'INTERNAL' });
    }
  });

  it('deletes only the blobs no other snapshot uses, and never those of a snapshot being taken', async () => {
    const store = new SnapshotStore(dir);
    const h1 = new Set<string>();
    const shared = await store.put(Buffer.from('shared file'), h1);
    const own = await store.put(Buffer.from('only in the second'), h1);
    const history = await store.put(Buffer.from('[]'), h1);
    const all = shared.added + own.added + history.added;
    expect(await store.storedBytes()).toBe(all);
    await store.save(manifest('snap-aaaaaaaaaaaaaaaa', [shared], history));
    await store.save(manifest('snap-bbbbbbbbbbbbbbbb', [shared, own], history));
    store.release(h1);
    // A third one is being taken: its blob is not in any manifest yet.
    const h2 = new Set<string>();
    const pending = await store.put(Buffer.from('not saved yet'), h2);
    expect(await blobCount()).toBe(4);

    expect(await store.delete('snap-bbbbbbbbbbbbbbbb')).toEqual({ freedBytes: own.added });
    expect(await blobCount()).toBe(3);
    store.release(h2);
    expect(await store.collect()).toEqual({ freedBytes: pending.added });
    expect(await store.delete('snap-aaaaaaaaaaaaaaaa')).toEqual({ freedBytes: shared.added + history.added });
    expect(await blobCount()).toBe(0);
    expect(await store.storedBytes()).toBe(0);
    expect(await new SnapshotStore(dir).list()).toEqual([]);
  });

  it('keeps a file of zeros sparse: 64 MiB of zeros with a few bytes in it takes a few KiB of disk, and reads back whole', async () => {
    const store = new SnapshotStore(dir);
    const content = Buffer.alloc(64 * 1024 * 1024);
    content.write('start', 0);
    content.write('end', content.length - 3);
    const blob = await store.put(content, new Set());
    expect(blob.size).toBe(content.length);
    expect(blob.added).toBeLessThanOrEqual(2 * 64 * 1024);
    await store.save(manifest('snap-aaaaaaaaaaaaaaaa', [blob], blob));
    expect((await stat(join(dir, 'objects', blob.sha256.slice(0, 2), blob.sha256))).blocks * 512).toBe(blob.added);
    expect((await store.read(blob.sha256)).equals(content)).toBe(true);
  });

  it('puts new blobs in place only when their snapshot is saved: a crash before leaves no blob a later snapshot could take as whole', async () => {
    const inPlace = async (sha: string): Promise<boolean> => stat(join(dir, 'objects', sha.slice(0, 2), sha)).then(() => true, () => false);
    const temps = async (sha: string): Promise<string[]> => (await readdir(join(dir, 'objects', sha.slice(0, 2)))).filter((n) => n.endsWith('.tmp'));
    // A core writes a snapshot's blobs and dies before saving it: temporary files only, under no blob's own name.
    const dead = new SnapshotStore(dir);
    const lost = await dead.put(Buffer.from('written, never saved'), new Set());
    expect(await inPlace(lost.sha256)).toBe(false);
    expect(await temps(lost.sha256)).toHaveLength(1);
    // The next core does not take it as stored, and its sweep removes it.
    const next = new SnapshotStore(dir);
    expect(await next.reuse(lost.sha256, new Set())).toBe(false);
    await next.collect();
    expect(await temps(lost.sha256)).toEqual([]);
    // A snapshot that is saved: its blobs are whole and in place, no temporary file left.
    const hold = new Set<string>();
    const file = await next.put(Buffer.from('written and saved'), hold);
    const history = await next.put(Buffer.from('[]'), hold);
    expect(file.added).toBeGreaterThan(0);
    await next.save(manifest('snap-aaaaaaaaaaaaaaaa', [file], history));
    next.release(hold);
    expect(await inPlace(file.sha256)).toBe(true);
    expect(await temps(file.sha256)).toEqual([]);
    expect((await next.read(file.sha256)).toString()).toBe('written and saved');
  });

  it('writes the blobs of a snapshot several at a time: the same bytes put at once are stored once, the cap counts blobs still being written, and neither a sweep nor a read meets one half-written', async () => {
    const MiB = 1024 * 1024;
    const store = new SnapshotStore(dir, () => 5 * MiB);
    const hold = new Set<string>();
    const a = randomBytes(2 * MiB);
    const b = randomBytes(2 * MiB);
    const c = randomBytes(2 * MiB);
    // All started together: the sweep and the third put come while the first two are still being written.
    const [a1, a2, b1, swept, c1] = await Promise.allSettled([store.put(a, hold), store.put(a, hold), store.put(b, hold), store.collect(), store.put(c, hold)]);
    expect(a1).toMatchObject({ status: 'fulfilled', value: { size: 2 * MiB } });
    expect(a2).toMatchObject({ status: 'fulfilled', value: { size: 2 * MiB, added: 0 } });
    expect(b1).toMatchObject({ status: 'fulfilled' });
    expect(swept).toEqual({ status: 'fulfilled', value: { freedBytes: 0 } });
    // 4 MiB reserved by the two being written: the third does not fit in 5, and says so.
    expect(c1).toMatchObject({ status: 'rejected', reason: { code: 'LIMIT_EXCEEDED' } });
    const added = [a1, b1].map((r) => (r.status === 'fulfilled' ? r.value.added : 0));
    expect(added.every((n) => n >= 2 * MiB)).toBe(true);
    expect(await store.storedBytes()).toBe(added[0]! + added[1]!);
    expect(await blobCount()).toBe(2);
    const [shaA, shaB] = [a1, b1].map((r) => (r.status === 'fulfilled' ? r.value.sha256 : ''));
    expect((await store.read(shaA!)).equals(a)).toBe(true);
    await store.save(manifest('snap-aaaaaaaaaaaaaaaa', [{ sha256: shaA!, size: a.length }], { sha256: shaB!, size: b.length }));
    store.release(hold);
    expect((await new SnapshotStore(dir).read(shaB!)).equals(b)).toBe(true);
    expect(await blobCount()).toBe(2);
  });

  it('makes a blob folder again when it was removed under it: that put fails, the next one stores the blob', async () => {
    const store = new SnapshotStore(dir);
    const hold = new Set<string>();
    const first = await store.put(Buffer.from('first'), hold);
    await rm(join(dir, 'objects'), { recursive: true, force: true });
    // the same prefix folder, gone: a blob with the first one's prefix
    let other = Buffer.from('x');
    for (let i = 0; ; i += 1) {
      other = Buffer.from(`other ${i}`);
      if (createHash('sha256').update(other).digest('hex').slice(0, 2) === first.sha256.slice(0, 2)) break;
    }
    await expect(store.put(other, hold)).rejects.toMatchObject({ code: 'ENOENT' });
    const again = await store.put(other, hold);
    expect(again.added).toBeGreaterThan(0);
    expect((await store.read(again.sha256)).equals(other)).toBe(true);
  });

  it('refuses a blob beyond its cap in plain words, writing nothing, and takes it once space is freed', async () => {
    let cap = 3 * 1024 * 1024;
    const store = new SnapshotStore(dir, () => cap);
    const hold = new Set<string>();
    const first = await store.put(randomBytes(2 * 1024 * 1024), hold);
    const second = randomBytes(2 * 1024 * 1024);
    const refused = await store.put(second, hold).catch((e: unknown) => e as { code: string; message: string });
    expect(refused).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect((refused as { message: string }).message).toMatch(/^The space for snapshots is full: they may take 3 MiB of disk together and 2(\.\d)? MiB is taken/);
    expect(await blobCount()).toBe(1);
    expect(await store.storedBytes()).toBe(first.added);
    cap = 0;
    const off = await store.put(Buffer.from('x'), hold).catch((e: unknown) => e as { code: string; message: string });
    expect(off).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect((off as { message: string }).message).toMatch(/Snapshots are turned off/);
    cap = 8 * 1024 * 1024;
    expect((await store.put(second, hold)).added).toBeGreaterThanOrEqual(second.length);
    expect(await blobCount()).toBe(2);
  });

  it('reads its manifests again after a restart, and leaves out one that does not parse', async () => {
    const store = new SnapshotStore(dir);
    const hold = new Set<string>();
    const history = await store.put(Buffer.from('[]'), hold);
    await store.save(manifest('snap-cccccccccccccccc', [], history));
    await writeFile(join(dir, 'manifests', 'snap-dddddddddddddddd.json'), '{"version": 2}');
    const again = new SnapshotStore(dir);
    expect((await again.list()).map((m) => m.snapshot.id)).toEqual(['snap-cccccccccccccccc']);
    await expect(again.delete('../x')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
