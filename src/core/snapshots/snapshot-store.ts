import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { SandpitError } from '../../shared/api/errors';
import { snapshotSchema } from '../../shared/domain/snapshot';
import { pendingBaseSchema, pendingEntrySchema } from '../folders/review/review-pending';
import { denseBytes, syncFile, syncFolder, writeFileAtomic, writeSparseFile } from '../util/atomic-write';
import { SerialQueue } from '../util/serial-queue';
import { VerifiedBlobs, sha256OfAsync } from './verified-blobs';
import type { ReusedBuffers } from '../util/reused-buffers';

const SHA256 = /^[a-f0-9]{64}$/;
/** A blob written and not yet flushed (`<sha256>.<random>.tmp` beside where it will be). */
const TEMP_BLOB = /^([a-f0-9]{64})\.[a-f0-9]{12}\.tmp$/;
/** Blobs put in place at once when a snapshot is saved (their flushes, started as each was written, awaited first). */
const SYNC_CONCURRENCY = 8;
const SNAPSHOT_ID = /^snap-[a-z0-9]{8,40}$/;
const DIR_MODE = 0o700;
const STAT_KEY = /^\d+:\d+:\d+(\.\d+)?:\d+(\.\d+)?$/;

const blobRefSchema = z.object({ sha256: z.string().regex(SHA256), size: z.number().int().nonnegative() });

/** What a snapshot is on disk: its summary, who took it, and the blobs its files, packages and runs are in. */
export const snapshotManifestSchema = z.object({
  version: z.literal(1),
  snapshot: snapshotSchema,
  /** Who took it (an MCP session, a token); absent: the panel (every client may restore it). */
  owner: z.string().optional(),
  files: z.array(
    z.object({
      path: z.string().min(1).max(4096),
      sha256: z.string().regex(SHA256),
      size: z.number().int().nonnegative(),
      /** The file's inode, size, mtime and ctime when it was read: an unchanged file is not read again by the next snapshot. */
      stat: z.string().regex(STAT_KEY).optional(),
    }),
  ),
  packages: blobRefSchema.optional(),
  /** The runs, as JSON `[{code, language}]`. */
  history: blobRefSchema,
  /** Review folders ("Changes need my OK") and their pending changes (a file's content is a blob). */
  reviewFolders: z
    .array(
      z.object({
        name: z.string().min(1).max(200),
        hostPath: z.string().min(1).max(4096),
        mountPath: z.string().min(1).max(4096),
        entries: z.array(pendingEntrySchema),
        base: z.record(z.string(), pendingBaseSchema),
      }),
    )
    .optional(),
});
export type SnapshotManifest = z.infer<typeof snapshotManifestSchema>;

/** A blob's temporary file while it is written and until a save flushes it and puts it in place. */
interface UnsyncedBlob {
  temp: string;
  /** Disk it takes (reserved while it is written, then what it took). */
  taken: number;
  /** Settles once it is written (its disk use), or fails (it is then forgotten). */
  written: Promise<number>;
  /** Settles once it is written and flushed to disk (started as soon as it is written: a save then waits for little). */
  flushed: Promise<void>;
}

export interface StoredBlob {
  sha256: string;
  size: number;
  /** Bytes this put added to the disk (0 when the blob was already stored). */
  added: number;
}

const MIB = 1024 * 1024;

function mib(bytes: number): string {
  return `${(bytes / MIB).toLocaleString('en-US', { maximumFractionDigits: 1 })} MiB`;
}

/** Disk space a file takes (its allocated blocks: a sparse file's holes take none). */
async function diskBytes(path: string): Promise<number> {
  const st = await stat(path).catch(() => undefined);
  return st ? st.blocks * 512 : 0;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/**
 * Snapshots in Sandpit's data folder, content-addressed: every blob (a file, a package archive, a run
 * history) once at `<dir>/objects/<aa>/<sha256>`, one manifest per snapshot at `<dir>/manifests/<id>.json`.
 * Two snapshots of the same files share their blobs; deleting a snapshot removes the blobs no other uses.
 * The sweep waits for blobs being written, and blobs of snapshots still being taken are never swept.
 * Blobs are written sparse (a file of zeros takes no disk), and all of them together may take at most
 * `capBytes()` of disk (the Settings' snapshot space): a put beyond it is refused in plain words.
 * A blob is written first as a temporary file (several at a time), flushed to disk as soon as it is written;
 * saving the snapshot waits for its new blobs' flushes, puts them in place, and only then writes the manifest:
 * a manifest on disk names only blobs that are whole on disk, and a crash before it leaves only temporary files,
 * which the next sweep removes.
 */
export class SnapshotStore {
  private readonly objects: string;
  private readonly manifests: string;
  private readonly lock = new SerialQueue();
  /** Blobs put by snapshots not saved yet, with how many such snapshots hold each. */
  private readonly pending = new Map<string, number>();
  private cache: Map<string, SnapshotManifest> | undefined;
  /** Disk taken by the blobs (counted once, then kept up to date by put and the sweep). */
  private used: number | undefined;
  /** Blobs written by put (or being written) and not yet flushed and put in place (by save), by sha256. */
  private readonly unsynced = new Map<string, UnsyncedBlob>();
  /** Prefix folders of `objects` made (or found) by this store. */
  private readonly prefixes = new Set<string>();
  /** Blobs whose files are unchanged since their bytes were known to match (a read then skips hashing them). */
  private readonly verified = new VerifiedBlobs();

  constructor(
    readonly dir: string,
    private readonly capBytes: () => number = () => Number.POSITIVE_INFINITY,
  ) {
    this.objects = join(dir, 'objects');
    this.manifests = join(dir, 'manifests');
  }

  /**
   * Stores a blob once (a second put of the same bytes adds nothing); `hold` keeps it from the sweep until released.
   * The store's lock covers only the bookkeeping (is it there, does it fit, its place reserved): the bytes are
   * written outside it, so the files of one snapshot are written several at a time.
   */
  async put(content: Buffer, hold: Set<string>): Promise<StoredBlob> {
    const sha256 = await sha256OfAsync(content);
    const need = denseBytes(content);
    const started = await this.lock.run(async (): Promise<{ written: Promise<number> } | undefined> => {
      if (!hold.has(sha256)) {
        hold.add(sha256);
        this.pending.set(sha256, (this.pending.get(sha256) ?? 0) + 1);
      }
      const cap = this.capBytes();
      if (cap <= 0) throw new SandpitError('LIMIT_EXCEEDED', 'Snapshots are turned off: Settings → System → "Space for snapshots" is 0.');
      const path = this.blobPath(sha256);
      // Being written by another put (or written and not flushed yet): stored once, and whole once that write is.
      const underWay = this.unsynced.get(sha256);
      if (underWay) return { written: underWay.written.then(() => 0) };
      try {
        await stat(path);
        return undefined;
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
      const used = await this.usedBytes();
      if (used + need > cap) {
        throw new SandpitError(
          'LIMIT_EXCEEDED',
          `The space for snapshots is full: they may take ${mib(cap)} of disk together and ${mib(used)} is taken, so this snapshot does not fit. Delete snapshots you no longer need, or give snapshots more space in Settings → System.`,
          { reason: 'SNAPSHOT_STORE_FULL', capBytes: cap, usedBytes: used },
        );
      }
      const prefix = sha256.slice(0, 2);
      if (!this.prefixes.has(prefix)) {
        await mkdir(join(this.objects, prefix), { recursive: true, mode: DIR_MODE });
        this.prefixes.add(prefix);
      }
      const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      // Reserved now (what it will take, about), counted exactly once written.
      this.used = used + need;
      const blob: UnsyncedBlob = { temp, taken: need, written: Promise.resolve(need), flushed: Promise.resolve() };
      blob.written = writeSparseFile(temp, content).then(
        (taken) => {
          if (this.used !== undefined) this.used += taken - blob.taken;
          blob.taken = taken;
          return taken;
        },
        (error: unknown) => {
          // Its folder went (the data folder was changed under Sandpit): the next put makes it again.
          if (isMissing(error)) this.prefixes.delete(prefix);
          if (this.unsynced.get(sha256) === blob) this.unsynced.delete(sha256);
          if (this.used !== undefined) this.used = Math.max(0, this.used - blob.taken);
          throw error;
        },
      );
      blob.flushed = blob.written.then(() => syncFile(temp));
      // Awaited by this put below, by a save, a read or the sweep: a failure is theirs to see.
      blob.written.catch(() => undefined);
      blob.flushed.catch(() => undefined);
      this.unsynced.set(sha256, blob);
      return { written: blob.written };
    });
    if (!started) return { sha256, size: content.length, added: 0 };
    const added = await started.written;
    return { sha256, size: content.length, added };
  }

  /** Holds a blob already stored (an unchanged file of an earlier snapshot); false when it is not on disk. */
  async reuse(sha256: string, hold: Set<string>): Promise<boolean> {
    if (!SHA256.test(sha256)) return false;
    return this.lock.run(async () => {
      const there = await stat(this.blobPath(sha256)).then((st) => st.isFile(), () => false);
      if (there && !hold.has(sha256)) {
        hold.add(sha256);
        this.pending.set(sha256, (this.pending.get(sha256) ?? 0) + 1);
      }
      return there;
    });
  }

  /** Lets the sweep see these blobs again (the snapshot was saved, or given up). */
  release(hold: Set<string>): void {
    for (const sha of hold) {
      const left = (this.pending.get(sha) ?? 1) - 1;
      if (left <= 0) this.pending.delete(sha);
      else this.pending.set(sha, left);
    }
    hold.clear();
  }

  /** A blob's bytes, checked against its sha256; with `into`, in a buffer lent to be used again once sent (lent-buffers.ts). */
  async read(sha256: string, into?: ReusedBuffers): Promise<Buffer> {
    if (!SHA256.test(sha256)) throw new SandpitError('INVALID_INPUT', 'A blob id is a sha256.');
    let content: Buffer | undefined;
    try {
      // A blob of a snapshot still being taken (a fork reads its own before anything is saved) is in its unflushed
      // file, unless a save has just put it in place.
      const unsynced = this.unsynced.get(sha256);
      await unsynced?.written;
      const temp = unsynced?.temp;
      content = await (temp === undefined
        ? this.verified.read(sha256, this.blobPath(sha256), into)
        : this.verified.read(sha256, temp, into).catch((error: unknown) => {
            if (isMissing(error)) return this.verified.read(sha256, this.blobPath(sha256), into);
            throw error;
          }));
    } catch (error) {
      if (isMissing(error)) throw new SandpitError('NOT_FOUND', `A file of this snapshot is missing from ${this.objects} (${sha256.slice(0, 12)}…).`);
      throw error;
    }
    if (content === undefined) throw new SandpitError('INTERNAL', `A file of this snapshot was changed on disk (${sha256.slice(0, 12)}…): it can no longer be restored.`);
    return content;
  }

  async save(manifest: SnapshotManifest): Promise<void> {
    const all = await this.load();
    const shas = [
      ...manifest.files.map((f) => f.sha256),
      ...(manifest.packages ? [manifest.packages.sha256] : []),
      manifest.history.sha256,
      ...(manifest.reviewFolders ?? []).flatMap((folder) => folder.entries.flatMap((e) => (e.kind === 'file' ? [e.sha256] : []))),
    ];
    await this.lock.run(() => this.commitBlobs(shas));
    await mkdir(this.manifests, { recursive: true, mode: DIR_MODE });
    await writeFileAtomic(this.manifestPath(manifest.snapshot.id), JSON.stringify(manifest));
    await syncFolder(this.manifests);
    all.set(manifest.snapshot.id, manifest);
  }

  /** (The lock held.) Flushes the blobs of `shas` still unflushed, all together, puts them in place and flushes their folders. */
  private async commitBlobs(shas: readonly string[]): Promise<void> {
    const waiting = [...new Set(shas)].flatMap((sha) => {
      const blob = this.unsynced.get(sha);
      return blob ? [{ sha, ...blob }] : [];
    });
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < waiting.length) {
        const blob = waiting[next++]!;
        await blob.flushed;
        await rename(blob.temp, this.blobPath(blob.sha));
        this.unsynced.delete(blob.sha);
        // Its bytes are the ones put hashed: a read of the file as it is now need not hash them again.
        await this.verified.wrote(blob.sha, this.blobPath(blob.sha));
      }
    };
    await Promise.all(Array.from({ length: Math.min(SYNC_CONCURRENCY, waiting.length) }, worker));
    // Their folders' entries (the renames), several at a time as the files were: one by one, up to 256 folders each
    // waiting on the disk took 20–80 ms for a snapshot of 100 files.
    const folders = [...new Set(waiting.map((b) => b.sha.slice(0, 2)))];
    const syncNext = async (): Promise<void> => {
      for (let prefix = folders.pop(); prefix !== undefined; prefix = folders.pop()) await syncFolder(join(this.objects, prefix));
    };
    await Promise.all(Array.from({ length: Math.min(SYNC_CONCURRENCY, folders.length) }, syncNext));
  }

  /** Every snapshot, newest first. */
  async list(): Promise<SnapshotManifest[]> {
    return [...(await this.load()).values()].sort((a, b) => b.snapshot.createdAt.localeCompare(a.snapshot.createdAt));
  }

  async get(id: string): Promise<SnapshotManifest | undefined> {
    return (await this.load()).get(id);
  }

  /** Removes the snapshot's manifest, then every blob no other snapshot (saved or being taken) uses. */
  async delete(id: string): Promise<{ freedBytes: number }> {
    if (!SNAPSHOT_ID.test(id)) throw new SandpitError('INVALID_INPUT', 'A snapshot id looks like snap-1a2b3c4d5e6f.');
    const all = await this.load();
    if (!all.has(id)) throw new SandpitError('NOT_FOUND', `No snapshot ${id}.`);
    await rm(this.manifestPath(id), { force: true });
    all.delete(id);
    return this.lock.run(() => this.sweep(all));
  }

  /** Removes every blob no snapshot (saved or being taken) uses, e.g. what a failed snapshot had stored. */
  async collect(): Promise<{ freedBytes: number }> {
    const all = await this.load();
    return this.lock.run(() => this.sweep(all));
  }

  /** Disk used by every blob together. */
  async storedBytes(): Promise<number> {
    return this.lock.run(() => this.usedBytes());
  }

  /** (The lock held.) */
  private async usedBytes(): Promise<number> {
    if (this.used === undefined) {
      let total = 0;
      for (const path of await this.blobPaths()) total += await diskBytes(path);
      this.used = total;
    }
    return this.used;
  }

  private async sweep(all: Map<string, SnapshotManifest>): Promise<{ freedBytes: number }> {
    const used = new Set<string>(this.pending.keys());
    for (const m of all.values()) {
      for (const f of m.files) used.add(f.sha256);
      for (const folder of m.reviewFolders ?? []) for (const e of folder.entries) if (e.kind === 'file') used.add(e.sha256);
      if (m.packages) used.add(m.packages.sha256);
      used.add(m.history.sha256);
    }
    let freedBytes = 0;
    for (const path of await this.blobPaths()) {
      const sha = path.slice(-64);
      if (used.has(sha)) continue;
      const size = await diskBytes(path);
      await rm(path, { force: true });
      this.verified.forget(sha);
      freedBytes += size;
    }
    // Unflushed blobs no snapshot being taken holds any more (it failed).
    for (const [sha, blob] of [...this.unsynced]) {
      if (used.has(sha)) continue;
      const written = await blob.written.then(() => true, () => false);
      if (!written || this.unsynced.get(sha) !== blob) continue;
      this.unsynced.delete(sha);
      await rm(blob.temp, { force: true });
      freedBytes += blob.taken;
    }
    if (this.used !== undefined) this.used = Math.max(0, this.used - freedBytes);
    // Unflushed blobs left by a crash (never counted in `used`).
    const ours = new Set([...this.unsynced.values()].map((b) => b.temp));
    for (const temp of await this.blobPaths(TEMP_BLOB)) {
      if (ours.has(temp)) continue;
      freedBytes += await diskBytes(temp);
      await rm(temp, { force: true });
    }
    return { freedBytes };
  }

  /** The blob files (or, with `names`, the files whose names match it) of every prefix folder. */
  private async blobPaths(names: RegExp = SHA256): Promise<string[]> {
    const paths: string[] = [];
    let prefixes: string[];
    try {
      prefixes = await readdir(this.objects);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    for (const prefix of prefixes) {
      if (!/^[a-f0-9]{2}$/.test(prefix)) continue;
      for (const name of await readdir(join(this.objects, prefix)).catch(() => [] as string[])) {
        if (names.test(name)) paths.push(join(this.objects, prefix, name));
      }
    }
    return paths;
  }

  private async load(): Promise<Map<string, SnapshotManifest>> {
    if (this.cache) return this.cache;
    const found = new Map<string, SnapshotManifest>();
    let names: string[] = [];
    try {
      names = await readdir(this.manifests);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    for (const name of names) {
      if (!name.endsWith('.json') || !SNAPSHOT_ID.test(name.slice(0, -5))) continue;
      try {
        const parsed = snapshotManifestSchema.safeParse(JSON.parse(await readFile(join(this.manifests, name), 'utf8')));
        // A manifest that does not parse is not a snapshot (it is left on disk for a person to look at).
        if (parsed.success && parsed.data.snapshot.id === name.slice(0, -5)) found.set(parsed.data.snapshot.id, parsed.data);
      } catch {
        // Unreadable: left out, as above.
      }
    }
    this.cache ??= found;
    return this.cache;
  }

  private blobPath(sha256: string): string {
    return join(this.objects, sha256.slice(0, 2), sha256);
  }

  private manifestPath(id: string): string {
    return join(this.manifests, `${id}.json`);
  }
}

