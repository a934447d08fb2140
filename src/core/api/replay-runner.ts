import type { MethodName } from '../../shared/api/contract';
import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { AuditEntry } from '../../shared/domain/audit';
import type { ReplayRun, ReplayView } from '../../shared/domain/replay';
import type { CallContext, Handlers } from './api-types';
import { call } from './dispatcher';
import type { HandlerKit } from './handler-kit';
import { SESSION_ROWS_MAX, sessionLanguage } from './notebook-handlers';
import { openSession } from '../session-opening/session-factory';
import type { Logger } from '../log';
import { newId } from '../util/ids';
import { compareRuns } from '../../shared/replay-compare';
import { replayCall } from '../replay/replay-plan';

const CODE_PREVIEW_CHARS = 300;
/** Finished replays kept in memory for `audit.replay` answers and late panels (their rows stay in the audit log). */
const KEEP_FINISHED = 20;

/** Whether the original call ran (a replay repeats only what ran; a denied or failed-before-running row is skipped). */
function ranOriginally(entry: AuditEntry): boolean {
  return entry.status !== 'denied' && entry.status !== 'failed' && entry.status !== 'running';
}

function planRun(entry: AuditEntry): ReplayRun {
  const base = { originalId: entry.id, method: entry.method, code: entry.code.slice(0, CODE_PREVIEW_CHARS), diffs: [] };
  if (entry.status === 'running') return { ...base, outcome: 'skipped', note: 'The original was still running when the replay started.' };
  if (!ranOriginally(entry)) return { ...base, outcome: 'skipped', note: `The original never ran (${entry.status}${entry.errorMessage ? `: ${entry.errorMessage.slice(0, 200)}` : ''}).` };
  return { ...base, outcome: 'pending' };
}

/** Where the replay starts from: the recorded environment (by id, else by the name the row shows), else the language's own. */
function recordedEnvironment(rows: readonly AuditEntry[]): string | undefined {
  const sandbox = rows.find((r) => r.sandbox?.environmentId)?.sandbox;
  if (sandbox?.environmentId) return sandbox.environmentId;
  const named = rows.find((r) => r.environment)?.environment;
  return named?.replace(/ \(open network\)$/, '');
}

/** Folders the recorded runs had (newest record of each mount path) that the replay's session does not. */
function foldersMissing(rows: readonly AuditEntry[], present: readonly string[]): NonNullable<ReplayView['missingFolders']> {
  const had = new Map<string, NonNullable<AuditEntry['folders']>[number]>();
  for (const row of rows) for (const folder of row.folders ?? []) had.set(folder.mountPath, folder);
  return [...had.values()].filter((f) => !present.includes(f.mountPath));
}

/**
 * Replays a recorded session: its runs, in order, in a fresh session made from the recorded environment (image,
 * limits) — installs are runs of the session, so they are repeated in their place. Every run goes through the
 * API's audited, approval-checked handlers like any other call, with `replay_of` naming the original row; the
 * result of each is compared with the original's as it completes, and the view is sent as `replay.updated`.
 */
export class ReplayRunner {
  private readonly replays = new Map<string, ReplayView>();
  /** Per replay: the mount paths of the folders its session lacks. */
  private readonly missing = new Map<string, Set<string>>();

  /** The replay whose session is `sessionId`. */
  private replayOf(sessionId: string): string {
    return [...this.replays.values()].find((r) => r.replaySessionId === sessionId)?.id ?? '';
  }
  private readonly log: Logger;

  constructor(
    private readonly kit: HandlerKit,
    /** The policy-wrapped handlers (audit, approvals): the only way a replayed run is called. */
    private readonly api: () => Handlers,
  ) {
    this.log = kit.sessions.logger.child({ component: 'replay' });
  }

  /** Starts a replay of `sessionId`'s runs; returns its first view at once (the runs follow, announced as they go). */
  start(sessionId: string, context: CallContext): ReplayView {
    const busy = [...this.replays.values()].find((r) => r.originalSessionId === sessionId && (r.state === 'starting' || r.state === 'running'));
    if (busy) throw new SandpitError('CONFLICT', `The session ${sessionId} is being replayed already; wait for that replay to end.`);
    const rows = this.kit.audit.sessionRows(sessionId, context.principal, SESSION_ROWS_MAX);
    if (rows.length === 0) throw new SandpitError('NOT_FOUND', `No runs of the session ${sessionId} are in the audit log.`);
    const recordedImage = rows.find((r) => r.sandbox?.image)?.sandbox?.image;
    const view: ReplayView = {
      id: newId('replay', 6),
      originalSessionId: sessionId,
      state: 'starting',
      startedAt: new Date().toISOString(),
      ...(recordedImage ? { recordedImage } : {}),
      runs: rows.map(planRun),
    };
    this.remember(view);
    this.run(view, rows, context).catch((error: unknown) => {
      this.log.error('replay ended with an unexpected error', { replayId: view.id, error: toErrorBody(error).message });
      this.update(view, { state: 'failed', message: toErrorBody(error).message, finishedAt: new Date().toISOString() });
    });
    return structuredClone(view);
  }

  private async run(view: ReplayView, rows: readonly AuditEntry[], context: CallContext): Promise<void> {
    const environment = recordedEnvironment(rows);
    const limits = rows.find((r) => r.sandbox?.limits)?.sandbox?.limits;
    let replaySessionId: string;
    try {
      const { session } = await openSession(this.kit.sessions, this.kit.environments, {
        ...(environment ? { environment } : { language: sessionLanguage(this.kit, view.originalSessionId, rows) }),
        ...(limits ? { limits } : {}),
        name: `Replay of ${view.originalSessionId}`.slice(0, 64),
        client: context.client,
        owner: context.principal,
        // The environment's folders come along (checked again); folders added to the original session later do not.
        sharing: this.kit.folders,
      });
      replaySessionId = session.id;
      const { image, environmentName } = session.info();
      const imageNote =
        view.recordedImage && view.recordedImage !== image
          ? `The recorded image was ${view.recordedImage}; the environment now builds ${image} (its definition changed since), so the replay runs on that.`
          : undefined;
      const missingFolders = foldersMissing(rows, session.info().folders.map((f) => f.mountPath));
      this.update(view, {
        state: 'running',
        replaySessionId,
        image,
        ...(environmentName ? { environment: environmentName } : {}),
        ...(imageNote ? { message: imageNote } : {}),
        ...(missingFolders.length > 0 ? { missingFolders } : {}),
      });
      this.missing.set(view.id, new Set(missingFolders.map((f) => f.mountPath)));
    } catch (error) {
      this.update(view, { state: 'failed', message: `Could not start a fresh session for the replay: ${toErrorBody(error).message}`, finishedAt: new Date().toISOString() });
      return;
    }
    try {
      for (const [index, entry] of rows.entries()) {
        if (view.runs[index]!.outcome !== 'pending') continue;
        this.updateRun(view, index, { outcome: 'running' });
        this.updateRun(view, index, await this.replayOne(entry, replaySessionId, context));
      }
    } finally {
      this.missing.delete(view.id);
      await this.kit.sessions.stop(replaySessionId).catch((error: unknown) => this.log.warn('could not stop the replay session', { sessionId: replaySessionId, error: toErrorBody(error).message }));
    }
    this.update(view, { state: 'done', finishedAt: new Date().toISOString() });
  }

  /** One run, through the audited handlers; its own audit row (found by replay_of) is compared with the original. */
  private async replayOne(original: AuditEntry, sessionId: string, context: CallContext): Promise<Partial<ReplayRun>> {
    let replayId: number | undefined;
    const stop = this.kit.bus.on('audit.appended', (row) => {
      if (row.replayOf === original.id) replayId = row.id;
    });
    let thrown: unknown;
    try {
      for (const step of replayCall(original, sessionId)) {
        await call(this.api(), step.method as MethodName, step.input, { ...context, ...(step.audited ? { replayOf: original.id } : {}) });
      }
    } catch (error) {
      thrown = error;
    } finally {
      stop();
    }
    const replay = replayId === undefined ? undefined : this.kit.audit.get(replayId, context.principal);
    if (!replay) return { outcome: 'failed', note: `The replay could not run it: ${toErrorBody(thrown).message}` };
    if (replay.status === 'denied' || replay.status === 'failed') {
      return { outcome: 'failed', replayId, note: `The replay's call ${replay.status === 'denied' ? 'was refused' : 'failed'}: ${replay.errorMessage ?? toErrorBody(thrown).message}` };
    }
    const compared = compareRuns(original, replay);
    const lacked = (original.folders ?? []).filter((f) => this.missing.get(this.replayOf(sessionId))?.has(f.mountPath));
    if (compared.outcome === 'differs' && lacked.length > 0) {
      return { replayId, ...compared, note: `The original had ${lacked.map((f) => `the folder ${f.hostPath} at ${f.mountPath}`).join(' and ')}; the replay did not, so what reads it differs.` };
    }
    return { replayId, ...compared };
  }

  private updateRun(view: ReplayView, index: number, change: Partial<ReplayRun>): void {
    view.runs[index] = { ...view.runs[index]!, ...change };
    this.kit.bus.emit('replay.updated', structuredClone(view));
  }

  private update(view: ReplayView, change: Partial<ReplayView>): void {
    Object.assign(view, change);
    this.kit.bus.emit('replay.updated', structuredClone(view));
  }

  private remember(view: ReplayView): void {
    this.replays.set(view.id, view);
    const finished = [...this.replays.values()].filter((r) => r.state === 'done' || r.state === 'failed');
    for (const old of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.replays.delete(old.id);
  }
}
