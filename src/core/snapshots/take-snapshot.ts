import type { Snapshot } from '../../shared/domain/snapshot';
import type { Session } from '../sessions/session';
import { MAX_UPLOAD_BYTES } from '../sessions/workspace-files';
import { newId } from '../util/ids';
import type { SnapshotManifest, SnapshotStore } from './snapshot-store';

/** What one snapshot may hold: beyond these it is refused with LIMIT_EXCEEDED, saying which was reached. */
export const SNAPSHOT_CAPS = {
  maxFiles: 20_000,
  maxBytes: 1024 * 1024 * 1024,
  // A restore writes each file back through the agent, which takes files of up to this size.
  maxFileBytes: MAX_UPLOAD_BYTES,
  maxPackageBytes: 1024 * 1024 * 1024,
} as const;

export interface TakeSnapshotRequest {
  name?: string;
  /** Who takes it (undefined: the panel). */
  owner?: string;
}

function defaultName(session: Session, at: Date): string {
  const when = at.toISOString().slice(0, 16).replace('T', ' ');
  return `${session.identity.name.slice(0, 40)}, ${when}`;
}

/**
 * Takes a snapshot of a session: its workspace files (through the agent, links never followed), its
 * installed packages (the package store's archive) and its successful runs in order, as blobs in the
 * store (each stored once, however many snapshots hold it) and a manifest. On failure nothing is kept.
 */
export async function takeSnapshot(store: SnapshotStore, session: Session, request: TakeSnapshotRequest): Promise<Snapshot> {
  const hold = new Set<string>();
  try {
    const files: SnapshotManifest['files'] = [];
    let added = 0;
    const contents = await session.captureContents(async (path, content) => {
      const blob = await store.put(content, hold);
      added += blob.added;
      files.push({ path, sha256: blob.sha256, size: blob.size });
    }, SNAPSHOT_CAPS);
    const packages = contents.packages ? await store.put(contents.packages.tar, hold) : undefined;
    const history = await store.put(Buffer.from(JSON.stringify(contents.history), 'utf8'), hold);
    added += (packages?.added ?? 0) + history.added;
    const info = session.info();
    const createdAt = new Date();
    const snapshot: Snapshot = {
      id: newId('snap', 8),
      name: request.name ?? defaultName(session, createdAt),
      createdAt: createdAt.toISOString(),
      sessionId: info.id,
      sessionName: info.name,
      language: info.language,
      ...(info.environment ? { environment: info.environment } : {}),
      ...(info.environmentName ? { environmentName: info.environmentName } : {}),
      image: info.image,
      limits: info.limits,
      isolation: info.isolation,
      files: contents.files,
      fileBytes: contents.bytes,
      packages: contents.packageNames,
      packageBytes: packages?.size ?? 0,
      runs: contents.history.length,
      historyComplete: contents.historyComplete,
      sizeBytes: contents.bytes + (packages?.size ?? 0) + history.size,
      addedBytes: added,
      skipped: contents.skipped,
      sharedFoldersLeftOut: contents.leftOut.map((path) => `/workspace/${path}`),
      shared: request.owner === undefined,
    };
    await store.save({
      version: 1,
      snapshot,
      ...(request.owner === undefined ? {} : { owner: request.owner }),
      files,
      ...(packages ? { packages: { sha256: packages.sha256, size: packages.size } } : {}),
      history: { sha256: history.sha256, size: history.size },
    });
    store.release(hold);
    return snapshot;
  } catch (error) {
    // What it had stored goes again (unless another snapshot holds it too).
    store.release(hold);
    await store.collect().catch(() => undefined);
    throw error;
  }
}
