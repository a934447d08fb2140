import { toErrorBody } from '../../shared/api/errors';
import type { RestoredSession } from '../../shared/domain/snapshot';
import type { FolderSharing } from '../folders/folder-sharing';
import { prepareReviewLayers, shareFolders } from '../folders/share-folders';
import type { MountedFolder } from '../folders/share-folders';
import type { Session } from '../sessions/session';
import type { SnapshotManifest, SnapshotStore } from './snapshot-store';

type ReviewPart = NonNullable<SnapshotManifest['reviewFolders']>[number];
export type ReviewOutcome = NonNullable<RestoredSession['reviewFolders']>[number];

/** A snapshot's review folders made ready for a new session: shared again (checked as any share), each with a new layer. */
export interface ReviewFoldersToRestore {
  folders: MountedFolder[];
  outcomes: ReviewOutcome[];
  /** Writes each folder's pending changes into the session's layer (the session up); what failed is said in `outcomes`. */
  seed(session: Session, store: SnapshotStore): Promise<void>;
  /** Removes the layers made (the session was not made). */
  drop(): Promise<void>;
}

/**
 * The review folders ("Changes need my OK") of a snapshot, for a new session: `refusal` says why a folder is not
 * given (an assistant's restore), else each is shared again through every check a folder passes when shared (a
 * folder now refused is not given, saying why), with a layer of its own.
 */
export async function reviewFoldersToRestore(
  manifest: SnapshotManifest,
  sharing: FolderSharing,
  refusal: string | undefined,
): Promise<ReviewFoldersToRestore> {
  const parts = manifest.reviewFolders ?? [];
  const outcomes: ReviewOutcome[] = [];
  const accepted: Array<{ part: ReviewPart; outcome: ReviewOutcome }> = [];
  let folders: MountedFolder[] = [];
  for (const part of parts) {
    const outcome: ReviewOutcome = { hostPath: part.hostPath, mountPath: part.mountPath, carried: false, message: '' };
    outcomes.push(outcome);
    if (refusal) {
      outcome.message = refusal;
      continue;
    }
    try {
      folders = await shareFolders(
        [{ hostPath: part.hostPath, mode: 'review', mountPath: part.mountPath }],
        sharing,
        folders,
      );
      accepted.push({ part, outcome });
    } catch (error) {
      outcome.message = `Not shared again: ${toErrorBody(error).message}`;
    }
  }
  const mounted = await prepareReviewLayers(folders, sharing);
  const drop = async (): Promise<void> => {
    for (const f of mounted) if (f.layerPath) await sharing.reviews?.remove(f.layerPath);
  };
  return {
    folders: mounted,
    outcomes,
    drop,
    async seed(session: Session, store: SnapshotStore): Promise<void> {
      for (const { part, outcome } of accepted) {
        const folder = mounted.find((f) => f.mountPath === part.mountPath);
        if (!folder?.layerPath || !sharing.reviews) continue;
        const layerPath = folder.layerPath;
        const reviews = sharing.reviews;
        try {
          await session.withSandbox('Restoring pending changes', () =>
            reviews.seed(layerPath, folder.hostPath, { entries: part.entries, base: part.base, skipped: [] }, (entry) =>
              store.read(entry.sha256),
            ),
          );
          outcome.carried = true;
          outcome.message = `Shared again with "Changes need my OK": its ${part.entries.length} pending change${part.entries.length === 1 ? '' : 's'} wait for the person's OK in this session.`;
        } catch (error) {
          outcome.message = `Shared again, but its pending changes could not be put back: ${toErrorBody(error).message}`;
        }
      }
    },
  };
}
