import { join } from 'node:path';
import { SandpitError } from '../../shared/api/errors';
import type { RestoredSession, Snapshot } from '../../shared/domain/snapshot';
import { findEnvironment } from '../environments/environment-lookup';
import { sessionConnection } from '../session-opening/session-connection';
import { replayRuns } from '../snapshots/replay-runs';
import type { RunAgain } from '../snapshots/replay-runs';
import type { MountedFolder } from '../folders/share-folders';
import { restoreContents, restoreFilesOf, restorePackages, snapshotHistory } from '../snapshots/restore-contents';
import { reviewFoldersToRestore } from '../snapshots/review-restore';
import type { ReviewOutcome } from '../snapshots/review-restore';
import { SnapshotStore } from '../snapshots/snapshot-store';
import type { SnapshotManifest } from '../snapshots/snapshot-store';
import { SNAPSHOT_CAPS, takeSnapshot } from '../snapshots/take-snapshot';
import type { TakeSnapshotRequest } from '../snapshots/take-snapshot';
import type { RestoreFile } from '../sessions/session-contents';
import type { Session } from '../sessions/session';
import { AsyncQueue } from '../util/async-queue';
import type { CallContext, Handler, Handlers } from './api-types';
import type { HandlerKit } from './handler-kit';

/** What a new session copies: a snapshot's, or the session a fork is of. */
type CopyOf = Pick<Snapshot, 'language' | 'image' | 'environment' | 'environmentName' | 'limits' | 'isolation'>;

type SnapshotMethods = 'snapshots.create' | 'snapshots.list' | 'snapshots.delete' | 'snapshots.restore' | 'sessions.fork';

/** A panel snapshot (no owner) is every client's; an assistant's is its own. The panel sees them all. */
function visibleTo(manifest: SnapshotManifest, principal: string | undefined): boolean {
  return principal === undefined || manifest.owner === undefined || manifest.owner === principal;
}

function notFound(reference: string): SandpitError {
  return new SandpitError('NOT_FOUND', `No snapshot "${reference}": see list_snapshots for the ones you can restore.`);
}

/**
 * Snapshots (files, installed packages and the runs of a session, content-addressed in the data folder),
 * restoring one into a new session, and forks (both in one step). `execute` is the policy-wrapped
 * sessions.execute: a replay's runs are audited and approval-checked like any other.
 */
export function snapshotHandlers(kit: HandlerKit, execute: () => Handler<'sessions.execute'>): Pick<Handlers, SnapshotMethods> {
  const store = new SnapshotStore(join(kit.config.home, 'snapshots'), () => kit.settings.current.snapshotStoreMb * 1024 * 1024);
  const { sessions, environments } = kit;

  const find = async (reference: string, principal: string | undefined): Promise<SnapshotManifest> => {
    const byId = await store.get(reference);
    if (byId) {
      if (!visibleTo(byId, principal)) throw notFound(reference);
      return byId;
    }
    const byName = (await store.list()).find((m) => m.snapshot.name === reference && visibleTo(m, principal));
    if (!byName) throw notFound(reference);
    return byName;
  };

  /**
   * A new session made like `of` (the same image, limits and isolation; its environment as it is now for network
   * and secrets), the pools' refill held until `release`: the warm sandbox it takes is replaced once its files are
   * written, not beside the copy.
   */
  const openCopy = async (
    of: CopyOf,
    kind: 'snapshot' | 'session',
    options: { name: string; folders?: MountedFolder[] },
    context: CallContext,
  ): Promise<{ session: Session; release: () => void }> => {
    const env = of.environment === undefined ? undefined : await findEnvironment(environments.store, of.environment).catch(() => undefined);
    if (of.environment !== undefined && env === undefined) {
      const taken = kind === 'snapshot' ? 'this snapshot was taken in' : 'this session was made in';
      throw new SandpitError(
        'NOT_FOUND',
        `The environment "${of.environmentName ?? of.environment}" ${taken} was deleted, so its network and packages are unknown: the ${kind} cannot be ${kind === 'snapshot' ? 'restored' : 'forked'}.`,
      );
    }
    sessions.assertEngineUp();
    const policy = env?.network ?? 'none';
    // Connected as its environment's sessions are now: the egress proxy with the secrets it may use (issue 18).
    const connection = await sessionConnection(policy, env?.id, environments);
    const release = sessions.holdRefills();
    const session = await sessions
      .create({
        language: of.language,
        image: of.image,
        ...(env ? { environment: { id: env.id, name: env.name } } : {}),
        limits: of.limits,
        networkPolicy: policy,
        isolation: of.isolation,
        ...connection,
        name: options.name,
        client: context.client,
        owner: context.principal,
        ...(options.folders?.length ? { folders: options.folders } : {}),
      })
      .catch((error: unknown) => {
        release();
        throw error;
      });
    return { session, release };
  };

  /** What a restore or fork answers, after running the snapshot's runs again when asked. */
  const finish = async (session: Session, manifest: SnapshotManifest, files: number, review: ReviewOutcome[], replay: boolean, context: CallContext): Promise<RestoredSession> => {
    const { snapshot } = manifest;
    const reviewFolders = review.length ? { reviewFolders: review } : {};
    if (!replay) return { session: session.info(), snapshot, files, ...reviewFolders };
    const history = await snapshotHistory(store, manifest);
    const run: RunAgain = (record) => execute()({ sessionId: session.id, code: record.code }, context);
    return { session: session.info(), snapshot, files, replay: await replayRuns(history, snapshot.historyComplete, run), ...reviewFolders };
  };

  const restore = async (
    manifest: SnapshotManifest,
    options: { replay: boolean; name?: string; reviewRefusal?: string | undefined },
    context: CallContext,
  ): Promise<RestoredSession> => {
    const { snapshot } = manifest;
    const review = await reviewFoldersToRestore(manifest, kit.folders, options.reviewRefusal);
    const { session, release } = await openCopy(snapshot, 'snapshot', { name: options.name ?? `${snapshot.name.slice(0, 50)} (copy)`, folders: review.folders }, context).catch(
      async (error: unknown) => {
        await review.drop();
        throw error;
      },
    );
    let files: number;
    try {
      files = await restoreContents(store, manifest, session);
      await review.seed(session, store);
    } catch (error) {
      await sessions.stop(session.id).catch(() => undefined);
      throw error;
    } finally {
      release();
    }
    return finish(session, manifest, files, review.outcomes, options.replay, context);
  };

  const saved = async (snapshotId: string): Promise<SnapshotManifest> => {
    const manifest = await store.get(snapshotId);
    if (!manifest) throw new SandpitError('INTERNAL', `The snapshot ${snapshotId} was just saved but cannot be read back.`);
    return manifest;
  };

  /**
   * A fork writes each file into its new session as the snapshot takes it (one pass: the fork takes about as long as
   * the slower of the two, not both one after the other). A session with review folders is snapshot first: the new
   * session is given those folders, with their pending changes, when it is made.
   */
  const fork = async (source: Session, request: TakeSnapshotRequest, options: { replay: boolean; name: string }, context: CallContext): Promise<RestoredSession> => {
    if (source.mountedFolders.some((folder) => folder.mode === 'review')) {
      return restore(await saved((await takeSnapshot(store, source, request)).id), options, context);
    }
    const { session, release } = await openCopy(source.info(), 'session', { name: options.name }, context);
    const files = new AsyncQueue<RestoreFile>();
    const restoreFile = restoreFilesOf(store);
    const writing = session.restoreContents(files, undefined, SNAPSHOT_CAPS);
    writing.catch(() => undefined);
    let manifest: SnapshotManifest;
    try {
      const taken = await takeSnapshot(store, source, { ...request, onFile: (file) => files.push(restoreFile(file)) }).catch((error: unknown) => {
        files.fail(error);
        throw error;
      });
      files.end();
      await writing;
      manifest = await saved(taken.id);
      await restorePackages(store, manifest, session);
    } catch (error) {
      await writing.catch(() => undefined);
      await sessions.stop(session.id).catch(() => undefined);
      throw error;
    } finally {
      release();
    }
    return finish(session, manifest, manifest.files.length, [], options.replay, context);
  };

  return {
    'snapshots.create': async ({ sessionId, name }, context) => {
      const session = await kit.target(sessionId, context);
      return takeSnapshot(store, session, {
        ...(name === undefined ? {} : { name }),
        ...(context.principal === undefined ? {} : { owner: context.principal }),
        reviews: kit.folders.reviews,
      });
    },
    'snapshots.list': async (_input, context) => ({
      snapshots: (await store.list()).filter((m) => visibleTo(m, context.principal)).map((m) => m.snapshot),
      storedBytes: await store.storedBytes(),
    }),
    'snapshots.delete': async ({ snapshotId }, context) => {
      const manifest = await store.get(snapshotId);
      if (!manifest || !visibleTo(manifest, context.principal)) throw notFound(snapshotId);
      // An assistant deletes only the snapshots it took; a panel snapshot is the person's to delete.
      if (context.principal !== undefined && manifest.owner !== context.principal) {
        throw new SandpitError('DENIED', `The snapshot "${manifest.snapshot.name}" was taken in the Sandpit panel: only the person can delete it there.`);
      }
      const { freedBytes } = await store.delete(snapshotId);
      return { snapshotId, deleted: true, freedBytes };
    },
    'snapshots.restore': async ({ snapshot, replay, name }, context) =>
      restore(
        await find(snapshot, context.principal),
        {
          replay,
          ...(name === undefined ? {} : { name }),
          // the person's folders are shared in the panel only: an assistant's restore does not get them back
          reviewRefusal:
            context.principal === undefined
              ? undefined
              : "Not given to this session: an assistant's restore does not get the person's folders. Restored in the Sandpit panel, the session gets the folder back with its pending changes.",
        },
        context,
      ),
    'sessions.fork': async ({ sessionId, replay, name }, context) => {
      const session = await kit.target(sessionId, context);
      const request: TakeSnapshotRequest = {
        name: `Fork of ${session.identity.name.slice(0, 40)}, ${new Date().toISOString().slice(11, 19)}`,
        ...(context.principal === undefined ? {} : { owner: context.principal }),
        reviews: kit.folders.reviews,
      };
      return fork(session, request, { replay, name: name ?? `Fork of ${session.identity.name.slice(0, 50)}` }, context);
    },
  };
}
