import type { Snapshot } from '../../shared/domain/snapshot';
import type { ReviewLayers } from '../folders/review/review-layers';
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
  /** The layers of review folders: their pending changes go into the snapshot too. */
  reviews?: ReviewLayers | undefined;
  /**
   * Told of each workspace file as it is taken, in the archive's order: its path, its size, and its blob's sha256 once
   * stored (a fork writes the file into its new session while the snapshot goes on).
   */
  onFile?: (file: TakenFile) => void;
}

export interface TakenFile {
  path: string;
  size: number;
  /** Rejects when the blob could not be stored (the snapshot then fails too). */
  sha256: Promise<string>;
}

type ReviewFolderPart = NonNullable<SnapshotManifest['reviewFolders']>[number];

/** The pending changes of each review folder of the session, their files' contents stored as blobs. */
async function captureReviewFolders(
  store: SnapshotStore,
  session: Session,
  reviews: ReviewLayers,
  hold: Set<string>,
): Promise<{ parts: ReviewFolderPart[]; skipped: string[]; bytes: number; added: number }> {
  const parts: ReviewFolderPart[] = [];
  const skipped: string[] = [];
  let bytes = 0;
  let added = 0;
  for (const folder of session.mountedFolders) {
    if (folder.mode !== 'review' || !folder.layerPath) continue;
    const { pending, read } = await reviews.pending(folder.layerPath, folder.hostPath, SNAPSHOT_CAPS.maxFileBytes);
    for (const entry of pending.entries) {
      if (entry.kind !== 'file') continue;
      const blob = await store.put(await read(entry), hold);
      bytes += blob.size;
      added += blob.added;
    }
    skipped.push(...pending.skipped.map((s) => `${folder.mountPath.replace(/^\/workspace\//, '')}/${s}`));
    parts.push({ name: folder.name, hostPath: folder.hostPath, mountPath: folder.mountPath, entries: pending.entries, base: pending.base });
  }
  return { parts, skipped, bytes, added };
}

function defaultName(session: Session, at: Date): string {
  const when = at.toISOString().slice(0, 16).replace('T', ' ');
  return `${session.identity.name.slice(0, 40)}, ${when}`;
}

/** The files of this session's newest snapshot that carry a stat key and whose blobs are stored (what an unchanged file reuses). */
async function previousFiles(store: SnapshotStore, sessionId: string, hold: Set<string>): Promise<Map<string, { sha256: string; size: number; stat: string }>> {
  const newest = (await store.list()).find((m) => m.snapshot.sessionId === sessionId);
  const found = new Map<string, { sha256: string; size: number; stat: string }>();
  // Only blobs still on disk, held from the sweep while this snapshot is taken.
  for (const f of newest?.files ?? []) if (f.stat && (await store.reuse(f.sha256, hold))) found.set(f.path, { sha256: f.sha256, size: f.size, stat: f.stat });
  return found;
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
    const previous = await previousFiles(store, session.id, hold);
    let review: Awaited<ReturnType<typeof captureReviewFolders>> = { parts: [], skipped: [], bytes: 0, added: 0 };
    const reviews = request.reviews;
    const contents = await session.captureContents(async (path, content, key) => {
      const earlier = previous.get(path);
      if (content === undefined) {
        // Unchanged since the previous snapshot (same inode, size, mtime, ctime): its blob, held above, is reused.
        if (!earlier || !key) throw new Error(`the snapshot was told to reuse ${path}, which it does not hold`);
        files.push({ path, sha256: earlier.sha256, size: earlier.size, stat: key });
        request.onFile?.({ path, size: earlier.size, sha256: Promise.resolve(earlier.sha256) });
        return;
      }
      // Its place is taken now: files are stored several at a time, and the manifest lists them in the archive's order.
      const slot = files.push({ path, sha256: '', size: content.length }) - 1;
      const put = store.put(content, hold);
      if (request.onFile) {
        const sha256 = put.then((stored) => stored.sha256);
        // its failure is the snapshot's (awaited below); whoever was told of the file sees it only if it waits for it
        sha256.catch(() => undefined);
        request.onFile({ path, size: content.length, sha256 });
      }
      const blob = await put;
      added += blob.added;
      files[slot] = { path, sha256: blob.sha256, size: blob.size, ...(key ? { stat: key } : {}) };
    }, { ...SNAPSHOT_CAPS, previous: new Map([...previous].map(([path, f]) => [path, f.stat])) }, reviews ? async () => {
      review = await captureReviewFolders(store, session, reviews, hold);
    } : undefined);
    const packages = contents.packages ? await store.put(contents.packages.tar, hold) : undefined;
    const history = await store.put(Buffer.from(JSON.stringify(contents.history), 'utf8'), hold);
    added += (packages?.added ?? 0) + history.added + review.added;
    const reviewMounts = new Set(review.parts.map((p) => p.mountPath));
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
      readBytes: contents.readBytes,
      packages: contents.packageNames,
      packageBytes: packages?.size ?? 0,
      runs: contents.history.length,
      historyComplete: contents.historyComplete,
      sizeBytes: contents.bytes + (packages?.size ?? 0) + history.size + review.bytes,
      addedBytes: added,
      skipped: [...contents.skipped, ...review.skipped],
      // the workspace walk never enters a shared folder; a review folder's pending changes are kept apart (reviewFolders)
      sharedFoldersLeftOut: contents.leftOut.map((path) => `/workspace/${path}`).filter((path) => !reviewMounts.has(path)),
      reviewFolders: review.parts.map((p) => ({ hostPath: p.hostPath, mountPath: p.mountPath, changes: p.entries.length })),
      shared: request.owner === undefined,
    };
    await store.save({
      version: 1,
      snapshot,
      ...(request.owner === undefined ? {} : { owner: request.owner }),
      files,
      ...(packages ? { packages: { sha256: packages.sha256, size: packages.size } } : {}),
      history: { sha256: history.sha256, size: history.size },
      ...(review.parts.length ? { reviewFolders: review.parts } : {}),
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
