import { join } from 'node:path';
import { SandpitError } from '../../shared/api/errors';
import type { RestoredSession } from '../../shared/domain/snapshot';
import { findEnvironment } from '../environments/environment-lookup';
import { sessionConnection } from '../session-opening/session-connection';
import { replayRuns } from '../snapshots/replay-runs';
import type { RunAgain } from '../snapshots/replay-runs';
import { restoreContents, snapshotHistory } from '../snapshots/restore-contents';
import { reviewFoldersToRestore } from '../snapshots/review-restore';
import { SnapshotStore } from '../snapshots/snapshot-store';
import type { SnapshotManifest } from '../snapshots/snapshot-store';
import { takeSnapshot } from '../snapshots/take-snapshot';
import type { CallContext, Handler, Handlers } from './api-types';
import type { HandlerKit } from './handler-kit';

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

  const restore = async (
    manifest: SnapshotManifest,
    options: { replay: boolean; name?: string; reviewRefusal?: string | undefined },
    context: CallContext,
  ): Promise<RestoredSession> => {
    const { snapshot } = manifest;
    const env = snapshot.environment === undefined ? undefined : await findEnvironment(environments.store, snapshot.environment).catch(() => undefined);
    if (snapshot.environment !== undefined && env === undefined) {
      throw new SandpitError(
        'NOT_FOUND',
        `The environment "${snapshot.environmentName ?? snapshot.environment}" this snapshot was taken in was deleted, so its network and packages are unknown: the snapshot cannot be restored.`,
      );
    }
    sessions.assertEngineUp();
    const policy = env?.network ?? 'none';
    const review = await reviewFoldersToRestore(manifest, kit.folders, options.reviewRefusal);
    // Connected as its environment's sessions are now: the egress proxy with the secrets it may use (issue 18).
    const connection = await sessionConnection(policy, env?.id, environments).catch(async (error: unknown) => {
      await review.drop();
      throw error;
    });
    // The warm sandbox this takes is replaced once its files are written, not beside the copy.
    const release = sessions.holdRefills();
    // The same image, limits and isolation as the session it was taken of (not the environment as it is now).
    const session = await sessions.create({
      language: snapshot.language,
      image: snapshot.image,
      ...(env ? { environment: { id: env.id, name: env.name } } : {}),
      limits: snapshot.limits,
      networkPolicy: policy,
      isolation: snapshot.isolation,
      ...connection,
      name: options.name ?? `${snapshot.name.slice(0, 50)} (copy)`,
      client: context.client,
      owner: context.principal,
      ...(review.folders.length ? { folders: review.folders } : {}),
    }).catch(async (error: unknown) => {
      release();
      await review.drop();
      throw error;
    });
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
    const reviewFolders = review.outcomes.length ? { reviewFolders: review.outcomes } : {};
    if (!options.replay) return { session: session.info(), snapshot, files, ...reviewFolders };
    const history = await snapshotHistory(store, manifest);
    const run: RunAgain = (record) => execute()({ sessionId: session.id, code: record.code }, context);
    const replay = await replayRuns(history, snapshot.historyComplete, run);
    return { session: session.info(), snapshot, files, replay, ...reviewFolders };
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
      const taken = await takeSnapshot(store, session, {
        name: `Fork of ${session.identity.name.slice(0, 40)}, ${new Date().toISOString().slice(11, 19)}`,
        ...(context.principal === undefined ? {} : { owner: context.principal }),
        reviews: kit.folders.reviews,
      });
      const manifest = await store.get(taken.id);
      if (!manifest) throw new SandpitError('INTERNAL', `The snapshot ${taken.id} was just saved but cannot be read back.`);
      return restore(manifest, { replay, name: name ?? `Fork of ${session.identity.name.slice(0, 50)}` }, context);
    },
  };
}
