import { join } from 'node:path';
import { SandpitError } from '../../shared/api/errors';
import type { ChangeOutcome, FileSide, FolderChanges } from '../../shared/domain/folder-changes';
import type { MountedFolder } from '../folders/share-folders';
import { sideBySide, unifiedDiff } from '../folders/review/review-diff';
import type { ReviewLayers } from '../folders/review/review-layers';
import { readVerified } from '../folders/review/review-files';
import { MAX_DIFF_BYTES } from '../folders/review/review-scan';
import type { Session } from '../sessions/session';
import type { Handlers } from './api-types';
import type { HandlerKit } from './handler-kit';

type ChangeMethods = 'changes.list' | 'changes.diff' | 'changes.apply' | 'changes.discard';

/** Pictures shown before and after up to this size. */
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;

function reviewFolders(session: Session): Array<MountedFolder & { layerPath: string }> {
  return session.mountedFolders.filter(
    (f): f is MountedFolder & { layerPath: string } => f.mode === 'review' && f.layerPath !== undefined,
  );
}

function folderAt(session: Session, mountPath: string): MountedFolder & { layerPath: string } {
  const wanted = mountPath.replace(/\/+$/, '');
  const folder = reviewFolders(session).find((f) => f.mountPath === wanted);
  if (!folder)
    throw new SandpitError('NOT_FOUND', `No folder whose changes need your OK is shared at ${wanted} in this session.`);
  return folder;
}

function layers(kit: HandlerKit): ReviewLayers {
  const reviews = kit.folders.reviews;
  if (!reviews)
    throw new SandpitError('DENIED', 'Folders whose changes need your OK are not available with this engine.', {
      reason: 'no-review',
    });
  return reviews;
}

/** One side of a change as text: exactly the content listed (its hash), else nothing (it changed, or its path now leads elsewhere). */
async function readText(path: string, side: FileSide | undefined): Promise<string> {
  if (side === undefined || side.size > MAX_DIFF_BYTES) return '';
  return (await readVerified(path, side.sha256, MAX_DIFF_BYTES))?.toString('utf8') ?? '';
}

/**
 * Review folders ("Changes need my OK"): what each session left pending (any caller: an assistant tells the
 * person what it did), one file's diff, and apply / discard (the person, in the panel: policy table).
 */
export function changeHandlers(kit: HandlerKit): Pick<Handlers, ChangeMethods> {
  const { sessions } = kit;
  return {
    'changes.list': async ({ sessionId, diffLines }, context) => {
      const targets = sessionId
        ? [sessions.access(sessionId, context.principal)]
        : sessions.listFor(context.principal).map((s) => sessions.access(s.id, context.principal));
      const out: FolderChanges[] = [];
      for (const session of targets) {
        for (const folder of reviewFolders(session)) {
          const changes = await layers(kit).changes(folder.layerPath, folder.hostPath);
          if (diffLines) {
            for (const change of changes) {
              if (!change.text || change.refused) continue;
              const before = await readText(join(folder.hostPath, change.from ?? change.path), change.before);
              const after = await readText(join(folder.layerPath, change.path), change.after);
              const diff = unifiedDiff(change.path, before, after, diffLines);
              change.diff = diff.text;
              if (diff.truncated) change.diffTruncated = true;
            }
          }
          const kept = await layers(kit).describe(folder.layerPath, folder.hostPath);
          out.push({
            sessionId: session.id,
            name: folder.name,
            hostPath: folder.hostPath,
            mountPath: folder.mountPath,
            backend: kept.backend,
            ...(kept.reason ? { backendReason: kept.reason } : {}),
            changes,
          });
        }
      }
      return { folders: out };
    },
    'changes.diff': async ({ sessionId, mountPath, path }, context) => {
      const folder = folderAt(sessions.access(sessionId, context.principal), mountPath);
      const change = (await layers(kit).changes(folder.layerPath, folder.hostPath)).find((c) => c.path === path);
      if (!change) throw new SandpitError('NOT_FOUND', `There is no pending change to ${path}.`);
      const beforePath = join(folder.hostPath, change.from ?? change.path);
      const afterPath = join(folder.layerPath, change.path);
      if (change.image && !change.refused) {
        const read = async (p: string, side: FileSide | undefined): Promise<string | undefined> =>
          side === undefined || side.size > MAX_IMAGE_BYTES
            ? undefined
            : (await readVerified(p, side.sha256, MAX_IMAGE_BYTES))?.toString('base64');
        const beforeImage = await read(beforePath, change.before);
        const afterImage = await read(afterPath, change.after);
        return {
          change,
          whitespaceOnly: false,
          ...(beforeImage ? { beforeImage } : {}),
          ...(afterImage ? { afterImage } : {}),
        };
      }
      if (!change.text || change.refused) return { change, whitespaceOnly: false };
      const before = await readText(beforePath, change.before);
      const after = await readText(afterPath, change.after);
      const squash = (s: string): string => s.replace(/\s+/g, '');
      return {
        change,
        rows: sideBySide(before, after),
        whitespaceOnly: before !== after && squash(before) === squash(after),
      };
    },
    'changes.apply': async ({ sessionId, mountPath, paths, confirmDelete, expect }, context) => {
      const folder = folderAt(sessions.access(sessionId, context.principal), mountPath);
      const outcomes = await layers(kit).apply(folder.layerPath, folder.hostPath, paths ? { paths } : { all: true }, {
        confirmDelete: confirmDelete === true,
        ...(expect ? { expect } : {}),
      });
      return { outcomes };
    },
    'changes.discard': async ({ sessionId, mountPath, paths }, context) => {
      const session = sessions.access(sessionId, context.principal);
      const folder = folderAt(session, mountPath);
      const discard = (): Promise<ChangeOutcome[]> =>
        layers(kit).discard(folder.layerPath, folder.hostPath, paths ? { paths } : { all: true });
      // An overlay is changed only as the engine mounts it: the session runs (a paused one resumes), nothing else queued runs meanwhile.
      const outcomes = folder.overlayWorkPath ? await session.withSandbox('Discarding changes', discard) : await discard();
      return { outcomes };
    },
  };
}
