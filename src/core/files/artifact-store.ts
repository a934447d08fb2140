import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { lstat, mkdir, open, readFile, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SandpitError } from '../../shared/api/errors';
import { artifactSchema } from '../../shared/domain/artifact';
import type { Artifact } from '../../shared/domain/artifact';
import { syncFolder, writeFileAtomic } from '../util/atomic-write';
import { SerialQueue } from '../util/serial-queue';
import { detectMime } from './mime';
import { fromWorkspacePath } from './safe-path';

export interface ArtifactStoreOptions {
  /** The store's root, e.g. `$SANDPIT_HOME/artifacts`. Nothing is written outside it. */
  dir: string;
  /** Clock for createdAt (tests). Default: the system clock. */
  now?: () => Date;
}

export interface ArtifactMeta {
  /** Where the file was in the session, relative to /workspace (`/workspace/x` is accepted as `x`). */
  path: string;
  sessionId: string;
  /** The session's name at capture. */
  sessionName?: string;
  executionId?: string;
  /** Detected from the path and the first bytes when absent. */
  mime?: string;
}

export interface ArtifactListFilter {
  sessionId?: string;
  limit?: number;
}

const SHA256_HEX = /^[a-f0-9]{64}$/;
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
const NEWLINE = 0x0a;
/** Append to the index, never through a link planted at its name (O_NOFOLLOW is POSIX only). */
const INDEX_APPEND_FLAGS =
  constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | ((constants as { O_NOFOLLOW?: number }).O_NOFOLLOW ?? 0);

function sha256Of(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

function assertSha256(sha256: string): void {
  if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
    throw new SandpitError('INVALID_INPUT', 'An artifact id is 64 lowercase hexadecimal characters (its sha256)');
  }
}

function requireText(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw new SandpitError('INVALID_INPUT', `${field} must be a non-empty string of at most ${max} characters`);
  }
  return value;
}

/** Reads `length` bytes at `position`, looping over short reads. */
async function readExactly(handle: FileHandle, length: number, position: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buffer.subarray(0, done);
}

/**
 * Content-addressed artifact store on disk: blobs at `<dir>/blobs/<aa>/<sha256>` (0600, folders
 * 0700), written atomically once; one JSON line per capture in `<dir>/index.jsonl` (fsynced).
 * The index is read incrementally and cached; a truncated or corrupt line is skipped.
 */
export class ArtifactStore {
  readonly dir: string;
  private readonly indexPath: string;
  private readonly now: () => Date;
  private records: Artifact[] = [];
  private indexOffset = 0;
  private indexInode: number | undefined;
  private realDir: string | undefined;
  /** Index work runs one task at a time: appends and incremental reads share the offset. */
  private readonly indexQueue = new SerialQueue();

  constructor(options: ArtifactStoreOptions) {
    this.dir = resolve(options.dir);
    this.indexPath = join(this.dir, 'index.jsonl');
    this.now = options.now ?? ((): Date => new Date());
  }

  /** The blob's absolute path (the id is validated first, so nothing can be injected). */
  pathOf(sha256: string): string {
    assertSha256(sha256);
    return join(this.dir, 'blobs', sha256.slice(0, 2), sha256);
  }

  async put(content: Buffer, meta: ArtifactMeta): Promise<Artifact> {
    if (!Buffer.isBuffer(content)) throw new SandpitError('INVALID_INPUT', 'Artifact content must be bytes');
    const path = fromWorkspacePath(meta.path);
    const sessionId = requireText(meta.sessionId, 'sessionId', 200);
    const sha256 = sha256Of(content);
    const artifact = artifactSchema.parse({
      sha256,
      path,
      mime: meta.mime === undefined ? detectMime(path, content.subarray(0, 64)) : requireText(meta.mime, 'mime', 255),
      size: content.length,
      sessionId,
      ...(meta.sessionName === undefined ? {} : { sessionName: requireText(meta.sessionName, 'sessionName', 200) }),
      ...(meta.executionId === undefined ? {} : { executionId: requireText(meta.executionId, 'executionId', 200) }),
      createdAt: this.now().toISOString(),
    });
    await this.writeBlob(sha256, content);
    await this.indexQueue.run(() => this.appendRecord(artifact));
    return artifact;
  }

  async get(sha256: string): Promise<{ artifact: Artifact; content: Buffer }> {
    assertSha256(sha256);
    const records = await this.indexQueue.run(() => this.refresh());
    const artifact = records.findLast((record) => record.sha256 === sha256);
    if (artifact === undefined) throw new SandpitError('NOT_FOUND', `No artifact ${sha256}`);
    let content: Buffer;
    try {
      content = await readFile(this.pathOf(sha256));
    } catch (error) {
      if (isMissing(error)) throw new SandpitError('NOT_FOUND', `The content of artifact ${sha256} is gone`);
      throw error;
    }
    if (sha256Of(content) !== sha256)
      throw new SandpitError('INTERNAL', `The content of artifact ${sha256} is corrupted`);
    return { artifact, content };
  }

  /** Captures, newest first (one per put, so the same content can appear more than once). */
  async list(filter: ArtifactListFilter = {}): Promise<Artifact[]> {
    const { sessionId, limit } = filter;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      throw new SandpitError('INVALID_INPUT', 'limit must be a positive integer');
    }
    const records = await this.indexQueue.run(() => this.refresh());
    const result: Artifact[] = [];
    for (let index = records.length - 1; index >= 0 && (limit === undefined || result.length < limit); index -= 1) {
      const record = records[index];
      if (record !== undefined && (sessionId === undefined || record.sessionId === sessionId)) result.push(record);
    }
    return result;
  }

  private async ensureFolder(path: string): Promise<void> {
    await mkdir(path, { recursive: true, mode: DIR_MODE });
    this.realDir ??= await realpath(this.dir);
    const relative = path.slice(this.dir.length);
    // A folder inside the store must not be a link leading elsewhere.
    if ((await realpath(path)) !== this.realDir + relative) {
      throw new SandpitError('INTERNAL', `Artifact folder ${path} resolves outside the store`);
    }
  }

  private async writeBlob(sha256: string, content: Buffer): Promise<void> {
    const target = this.pathOf(sha256);
    const folder = join(this.dir, 'blobs', sha256.slice(0, 2));
    await this.ensureFolder(folder);
    try {
      const existing = await lstat(target);
      if (existing.isFile() && existing.size === content.length) return;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    await writeFileAtomic(target, content, join(folder, `.tmp-${sha256}-${randomBytes(8).toString('hex')}`));
    await syncFolder(folder);
  }

  private async appendRecord(artifact: Artifact): Promise<void> {
    await this.ensureFolder(this.dir);
    const handle = await open(this.indexPath, INDEX_APPEND_FLAGS, FILE_MODE);
    try {
      const { size } = await handle.stat();
      // A line cut short by a crash must not swallow this record: start a fresh line.
      const last = size > 0 ? await readExactly(handle, 1, size - 1) : undefined;
      const prefix = last !== undefined && last[0] !== NEWLINE ? '\n' : '';
      await handle.appendFile(`${prefix}${JSON.stringify(artifact)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /** Reads the index lines added since the last call (from the start when the file was replaced). */
  private async refresh(): Promise<Artifact[]> {
    let handle: FileHandle;
    try {
      handle = await open(this.indexPath, 'r');
    } catch (error) {
      if (!isMissing(error)) throw error;
      this.records = [];
      this.indexOffset = 0;
      this.indexInode = undefined;
      return this.records;
    }
    try {
      const { size, ino } = await handle.stat();
      if (ino !== this.indexInode || size < this.indexOffset) {
        this.records = [];
        this.indexOffset = 0;
        this.indexInode = ino;
      }
      if (size === this.indexOffset) return this.records;
      const added = await readExactly(handle, size - this.indexOffset, this.indexOffset);
      const end = added.lastIndexOf(NEWLINE);
      if (end === -1) return this.records; // only a partial line so far
      for (const line of added.subarray(0, end).toString('utf8').split('\n')) {
        const record = this.parseRecord(line);
        if (record !== undefined) this.records.push(record);
      }
      this.indexOffset += end + 1;
      return this.records;
    } finally {
      await handle.close();
    }
  }

  private parseRecord(line: string): Artifact | undefined {
    if (line.trim() === '') return undefined;
    try {
      const parsed = artifactSchema.safeParse(JSON.parse(line));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }
}
