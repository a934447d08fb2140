import type { Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../util/atomic-write';

/** A file of the person's folder as the session read it (at share time, or when a change was applied). */
const baseSchema = z.object({
  size: z.number(),
  sha256: z.string(),
  mode: z.number(),
  uid: z.number(),
  gid: z.number(),
  /** The person's file's stat when read: unchanged (ino, size, mtime, ctime) → not read again to list. */
  host: z.object({ ino: z.number(), mtimeMs: z.number(), ctimeMs: z.number() }),
  /** The layer's copy's stat right after it was written: unchanged → the session did not touch it. */
  layer: z.object({ ino: z.number(), size: z.number(), mtimeMs: z.number(), ctimeMs: z.number(), mode: z.number() }),
});
export type BaseFile = z.infer<typeof baseSchema>;

const manifestSchema = z.object({
  version: z.literal(1),
  hostPath: z.string(),
  backend: z.literal('copy'),
  sharedAt: z.string(),
  files: z.record(z.string(), baseSchema),
});
export type ReviewManifest = z.infer<typeof manifestSchema>;

const MANIFEST = 'base.json';

export function stamp(info: Stats): BaseFile['layer'] {
  return { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, mode: info.mode & 0o7777 };
}

export function hostStamp(info: Stats): BaseFile['host'] {
  return { ino: info.ino, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs };
}

/** The layer's record of the person's folder; a record that does not parse is refused (it lives in the data folder, never trusted blindly). */
export async function readManifest(layerRoot: string): Promise<ReviewManifest> {
  const text = await readFile(join(layerRoot, MANIFEST), 'utf8');
  return manifestSchema.parse(JSON.parse(text));
}

export async function writeManifest(layerRoot: string, manifest: ReviewManifest): Promise<void> {
  await writeFileAtomic(join(layerRoot, MANIFEST), JSON.stringify(manifest));
}
