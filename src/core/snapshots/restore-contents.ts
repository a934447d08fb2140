import { z } from 'zod';
import { SandpitError } from '../../shared/api/errors';
import { LANGUAGES } from '../../shared/domain/languages';
import { ReusedBuffers } from '../util/reused-buffers';
import type { RunRecord } from '../sessions/run-history';
import type { Session } from '../sessions/session';
import type { SnapshotManifest, SnapshotStore } from './snapshot-store';
import type { RestoreFile } from '../sessions/session-contents';
import { SNAPSHOT_CAPS } from './take-snapshot';
import type { TakenFile } from './take-snapshot';

const historySchema = z.array(z.object({ code: z.string(), language: z.enum(LANGUAGES) }));

/** The recorded runs of a snapshot, in order. */
export async function snapshotHistory(store: SnapshotStore, manifest: SnapshotManifest): Promise<RunRecord[]> {
  const parsed = historySchema.safeParse(JSON.parse((await store.read(manifest.history.sha256)).toString('utf8')));
  if (!parsed.success) throw new SandpitError('INTERNAL', `The run history of snapshot ${manifest.snapshot.id} is damaged.`);
  return parsed.data;
}

/**
 * What a fork writes of each file its snapshot takes, as it takes it: the file's blob, read when its turn comes into
 * buffers used again once sent (one set for the whole fork).
 */
export function restoreFilesOf(store: SnapshotStore): (file: TakenFile) => RestoreFile {
  const buffers = new ReusedBuffers();
  return (file) => ({ path: file.path, size: file.size, load: async () => store.read(await file.sha256, buffers) });
}

/** A snapshot's package archive and the packages it holds, if it has any. */
async function packagesOf(store: SnapshotStore, manifest: SnapshotManifest): Promise<{ tar: Buffer; names: string[] } | undefined> {
  return manifest.packages ? { tar: await store.read(manifest.packages.sha256), names: manifest.snapshot.packages } : undefined;
}

/** Writes a snapshot's packages (if it has any) into a (new) session. */
export async function restorePackages(store: SnapshotStore, manifest: SnapshotManifest, session: Session): Promise<void> {
  const packages = await packagesOf(store, manifest);
  if (packages) await session.restoreContents([], packages, SNAPSHOT_CAPS);
}

/** Writes a snapshot's files and packages into a (new) session; each blob is checked against its sha256 as it is read. */
export async function restoreContents(store: SnapshotStore, manifest: SnapshotManifest, session: Session): Promise<number> {
  const packages = await packagesOf(store, manifest);
  const buffers = new ReusedBuffers();
  const files = manifest.files.map((f) => ({ path: f.path, size: f.size, load: () => store.read(f.sha256, buffers) }));
  await session.restoreContents(files, packages, SNAPSHOT_CAPS);
  return files.length;
}
