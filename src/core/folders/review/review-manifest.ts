import type { Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../util/atomic-write';

/** A file's stamp: unchanged (inode, size, times, mode) → its content was not touched. Code in a sandbox cannot set ctime. */
const stampSchema = z.object({
  ino: z.number(),
  size: z.number(),
  mtimeMs: z.number(),
  ctimeMs: z.number(),
  mode: z.number(),
});
export type FileStamp = z.infer<typeof stampSchema>;

/** A file of the person's folder as the session read it (at share time, or when a change was applied or discarded). */
const baseSchema = z.object({
  size: z.number(),
  /** The content's SHA-256. The overlay backend records it the first time it is needed (the share only stats). */
  sha256: z.string().optional(),
  /** UTF-8 text without NUL, at most MAX_DIFF_BYTES (known with the hash). */
  text: z.boolean().optional(),
  mode: z.number(),
  uid: z.number(),
  gid: z.number(),
  /** The person's file's stat when read: unchanged (ino, size, mtime, ctime) → not read again to list. */
  host: z.object({ ino: z.number(), mtimeMs: z.number(), ctimeMs: z.number() }),
  /**
   * The layer's own file right after Sandpit wrote or recorded it: unchanged → the session did not touch it.
   * Copy backend: always (the copy). Overlay backend: only once an apply or discard left a file in the upper layer.
   */
  layer: stampSchema.optional(),
});
export type BaseFile = z.infer<typeof baseSchema>;

export const REVIEW_BACKENDS = ['copy', 'overlay'] as const;
export type ReviewBackend = (typeof REVIEW_BACKENDS)[number];

const manifestSchema = z.object({
  version: z.union([z.literal(1), z.literal(2)]),
  hostPath: z.string(),
  backend: z.enum(REVIEW_BACKENDS),
  /** Why a copy was made where an overlay was not possible (said in the panel and to assistants). */
  reason: z.string().optional(),
  sharedAt: z.string(),
  files: z.record(z.string(), baseSchema),
});
export type ReviewManifest = z.infer<typeof manifestSchema>;

const MANIFEST = 'base.json';

export function stamp(info: Stats): FileStamp {
  return { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, mode: info.mode & 0o7777 };
}

export function hostStamp(info: Stats): BaseFile['host'] {
  return { ino: info.ino, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs };
}

/** The person's file is as it was recorded (same inode, size and times): not changed since. */
export function hostUnchanged(base: BaseFile, info: Stats): boolean {
  const h = base.host;
  return info.size === base.size && info.ino === h.ino && info.mtimeMs === h.mtimeMs && info.ctimeMs === h.ctimeMs;
}

/** The layer's file is as Sandpit left it (same inode, size, times and mode): the session did not touch it. */
export function layerUntouched(base: BaseFile, info: Stats): boolean {
  const l = base.layer;
  return (
    l !== undefined &&
    l.ino === info.ino &&
    l.size === info.size &&
    l.mtimeMs === info.mtimeMs &&
    l.ctimeMs === info.ctimeMs &&
    l.mode === (info.mode & 0o7777)
  );
}

function fileKey(info: Stats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

/**
 * The layers' records (`base.json`), read once and kept while the file on disk is the one read (its inode,
 * size and times): a 10,000-file record is parsed and checked once, not at every listing. Every record read
 * from disk is checked against the schema (it lives in the data folder and is never trusted blindly).
 */
export class ManifestFiles {
  private readonly cache = new Map<string, { key: string; manifest: ReviewManifest }>();

  async read(layerRoot: string): Promise<ReviewManifest> {
    const path = join(layerRoot, MANIFEST);
    const info = await stat(path);
    const cached = this.cache.get(layerRoot);
    if (cached && cached.key === fileKey(info)) return cached.manifest;
    const text = await readFile(path, 'utf8');
    const manifest = manifestSchema.parse(JSON.parse(text));
    this.cache.set(layerRoot, { key: fileKey(info), manifest });
    return manifest;
  }

  /**
   * Writes the record (the object `read` gave, changed in place: callers change it only inside the layer's
   * queue, and always write it after). A failed write forgets it, so the next read is the file's again.
   */
  async write(layerRoot: string, manifest: ReviewManifest): Promise<void> {
    const path = join(layerRoot, MANIFEST);
    manifest.version = 2;
    try {
      await writeFileAtomic(path, JSON.stringify(manifest));
      this.cache.set(layerRoot, { key: fileKey(await stat(path)), manifest });
    } catch (error) {
      this.cache.delete(layerRoot);
      throw error;
    }
  }

  forget(layerRoot: string): void {
    this.cache.delete(layerRoot);
  }
}
