import { SandpitError } from '../../shared/api/errors';
import { MAX_APPROVAL_CODE_CHARS } from '../../shared/domain/approval';
import type { Approval, ApprovalDecision, ApprovalKind, ApprovalOutcome, ChatAsk, SessionGrant } from '../../shared/domain/approval';
import type { CallTransport } from '../../shared/domain/caller';
import type { EventBus } from '../events/event-bus';
import type { Logger } from '../log';
import { newId } from '../util/ids';
import { MAX_STORED_GRANTS } from './grant-store';
import type { GrantStore, StoredGrant } from './grant-store';

export const DENIED_MESSAGE = 'The person using Sandpit denied this run.';
export const CANCELLED_MESSAGE = 'The request was cancelled before anyone answered, so the run was not allowed.';
export const SHUTDOWN_MESSAGE = 'Sandpit shut down before anyone answered, so the run was not allowed.';

export function deniedInChatMessage(client: string): string {
  return `The person denied this run in the chat (${client}).`;
}

export function expiredMessage(timeoutMs: number): string {
  return `No one answered within ${Math.round(timeoutMs / 1000)} s, so the run was not allowed.`;
}

export interface ApprovalRequest {
  kind: ApprovalKind;
  client: string;
  transport: CallTransport;
  sessionId?: string;
  /** The code, command or package list (capped for the panel). */
  code?: string;
  detail: string;
  /** The session's environment (by name) and network access, when it runs in an existing session. */
  environment?: string;
  network?: 'none' | 'packages' | 'open';
  /** The audit row of the call that waits. */
  auditId?: number;
  /** How long to wait for an answer; then the request counts as denied. */
  timeoutMs: number;
  /** The caller gave up (e.g. the MCP request was cancelled): the request is withdrawn. */
  signal?: AbortSignal;
  /**
   * The same question asked in the caller's chat too (MCP elicitation), when the client can and the settings
   * allow: whichever of the chat and the panel answers first decides, and the other is withdrawn at once.
   */
  chat?: ChatAsk;
}

export type { ChatAsk, ChatDecision } from '../../shared/domain/approval';

/** Where an answer came from, and whether it holds for the rest of the session (the chat's third choice). */
export interface ApprovalAnswer {
  answeredIn: 'panel' | 'chat';
  forSession: boolean;
}

interface Pending {
  approval: Approval;
  settle(outcome: ApprovalOutcome, message?: string, answeredIn?: 'panel' | 'chat', forSession?: boolean): void;
}

/** How many "approved for this session" grants are remembered (oldest forgotten first). */
const MAX_SESSION_GRANTS = MAX_STORED_GRANTS;

/** A grant as the queue holds it: `restored` when it was read back from the data folder after a restart. */
interface HeldGrant extends StoredGrant {
  restored: boolean;
}

/**
 * Calls waiting for the person's answer. `request` resolves when the person approves, and rejects with
 * DENIED when they deny, when no one answers in time, or when the caller withdraws. Every request
 * appears on the bus (`approval.requested`) and every end too (`approval.resolved`).
 */
export class ApprovalQueue {
  private readonly pending = new Map<string, Pending>();
  /** Sessions whose later questions the person approved in the chat ("Approve for this session"): who and when, oldest first. */
  private grants: HeldGrant[] = [];
  /** Set once the grants of the data folder were read back (until then nothing is written over them). */
  private grantsRestored = false;

  constructor(
    private readonly bus: EventBus,
    private readonly log?: Logger,
    /** Keeps the grants in the data folder (a kept session's outlive a restart); none: in memory only. */
    private readonly store?: GrantStore,
  ) {}

  request(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const createdAt = Date.now();
    const code = request.code;
    const approval: Approval = {
      id: newId('apr', 8),
      kind: request.kind,
      client: request.client,
      transport: request.transport,
      ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
      ...(code === undefined ? {} : { code: code.length > MAX_APPROVAL_CODE_CHARS ? `${code.slice(0, MAX_APPROVAL_CODE_CHARS)}\n… (cut: ${code.length} characters in all)` : code }),
      codeTruncated: code !== undefined && code.length > MAX_APPROVAL_CODE_CHARS,
      detail: request.detail,
      ...(request.auditId === undefined ? {} : { auditId: request.auditId }),
      ...(request.environment === undefined ? {} : { environment: request.environment }),
      ...(request.network === undefined ? {} : { network: request.network }),
      ...(request.chat === undefined ? {} : { askedInChat: true }),
      createdAt: new Date(createdAt).toISOString(),
      expiresAt: new Date(createdAt + request.timeoutMs).toISOString(),
    };
    if (request.signal?.aborted) return Promise.reject(new SandpitError('DENIED', CANCELLED_MESSAGE, { approval: approval.id, decision: 'cancelled' }));
    return new Promise<ApprovalAnswer>((resolve, reject) => {
      const onAbort = (): void => settle('cancelled');
      const timer = setTimeout(() => settle('expired'), request.timeoutMs);
      timer.unref();
      // Withdraws the chat's question the moment the request is settled in any other way.
      const chatDone = new AbortController();
      const settle = (outcome: ApprovalOutcome, message?: string, answeredIn: 'panel' | 'chat' = 'panel', forSession = false): void => {
        if (!this.pending.delete(approval.id)) return;
        clearTimeout(timer);
        chatDone.abort();
        request.signal?.removeEventListener('abort', onAbort);
        this.log?.info('approval resolved', { approval: approval.id, client: approval.client, kind: approval.kind, outcome, answeredIn });
        const answered = outcome === 'approved' || outcome === 'denied';
        this.bus.emit('approval.resolved', { id: approval.id, decision: outcome, ...(answered && answeredIn === 'chat' ? { answeredIn } : {}) });
        if (outcome === 'approved') {
          resolve({ answeredIn, forSession });
          return;
        }
        const why = message ?? (outcome === 'denied' ? (answeredIn === 'chat' ? deniedInChatMessage(approval.client) : DENIED_MESSAGE) : outcome === 'expired' ? expiredMessage(request.timeoutMs) : CANCELLED_MESSAGE);
        reject(new SandpitError('DENIED', why, { approval: approval.id, decision: outcome, ...(answered ? { answeredIn } : {}) }));
      };
      this.pending.set(approval.id, { approval, settle });
      request.signal?.addEventListener('abort', onAbort, { once: true });
      this.log?.info('waiting for approval', { approval: approval.id, client: approval.client, kind: approval.kind, sessionId: approval.sessionId, inChat: request.chat !== undefined });
      this.bus.emit('approval.requested', approval);
      if (request.chat) this.askInChat(request.chat, approval, chatDone.signal, settle);
    });
  }

  /** The person's answer. False when the request is no longer waiting (answered, expired or withdrawn). */
  respond(id: string, decision: ApprovalDecision): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    entry.settle(decision === 'approve' ? 'approved' : 'denied');
    return true;
  }

  /**
   * Whether the person approved the rest of this session's questions for this caller ("Approve for this session" in
   * the chat): given to this very caller (its MCP session), or — read back after a restart of Sandpit, for a kept
   * session — to the same assistant (`owner`: the same token and name), the only way to know it again.
   */
  grantedForSession(principal: string, sessionId: string, owner?: string): boolean {
    return this.grants.some((g) => g.sessionId === sessionId && (g.principal === principal || (g.restored && owner !== undefined && g.owner === owner)));
  }

  /** Remembers "Approve for this session": later questions of this caller in this session are not asked again. */
  grantSession(principal: string, sessionId: string, client = 'an unnamed client', owner?: string): void {
    this.grants = this.grants.filter((g) => !(g.sessionId === sessionId && g.principal === principal));
    this.grants.push({ sessionId, principal, ...(owner === undefined ? {} : { owner }), client, grantedAt: new Date().toISOString(), restored: false });
    if (this.grants.length > MAX_SESSION_GRANTS) this.grants.shift();
    this.log?.info('approved for the rest of a session', { sessionId, client });
    this.saveGrants();
    this.bus.emit('approval.grants', { sessionId });
  }

  /** What the person allowed in this session without asking again, oldest first (the panel shows it and can take it back). */
  sessionGrants(sessionId: string): SessionGrant[] {
    return this.grants.filter((g) => g.sessionId === sessionId).map(({ client, grantedAt }) => ({ client, grantedAt }));
  }

  /** Takes back "Approve for this session" for that assistant in that session: its next call is asked again. How many were taken back. */
  revokeSessionGrant(sessionId: string, client: string): number {
    const before = this.grants.length;
    this.grants = this.grants.filter((g) => !(g.sessionId === sessionId && g.client === client));
    const revoked = before - this.grants.length;
    if (revoked > 0) {
      this.log?.info('took back an approval for the rest of a session', { sessionId, client });
      this.saveGrants();
      this.bus.emit('approval.grants', { sessionId });
    }
    return revoked;
  }

  /** A session that is gone (stopped, removed) takes its grants with it. */
  forgetSession(sessionId: string): void {
    const before = this.grants.length;
    this.grants = this.grants.filter((g) => g.sessionId !== sessionId);
    if (this.grants.length !== before) this.saveGrants();
  }

  /**
   * Reads back the grants of an earlier Sandpit on this data folder, once its kept sessions are listed again: those of
   * sessions that exist now (kept ones) hold again, for the same assistant; the rest are forgotten, on disk too.
   */
  async restoreGrants(exists: (sessionId: string) => boolean): Promise<void> {
    if (this.grantsRestored || !this.store) return;
    const stored = await this.store.load();
    const live = new Set(this.grants.map((g) => `${g.principal}\n${g.sessionId}`));
    const back = stored.filter((g) => exists(g.sessionId) && !live.has(`${g.principal}\n${g.sessionId}`)).map((g) => ({ ...g, restored: true }));
    this.grants = [...back, ...this.grants].slice(-MAX_SESSION_GRANTS);
    this.grantsRestored = true;
    if (back.length > 0) this.log?.info('approvals given for kept sessions hold again after the restart', { grants: back.length });
    this.saveGrants();
    for (const sessionId of new Set(back.map((g) => g.sessionId))) this.bus.emit('approval.grants', { sessionId });
  }

  /** Every grant written to the data folder that was asked for. */
  flushGrants(): Promise<void> {
    return this.store?.flush() ?? Promise.resolve();
  }

  private saveGrants(): void {
    if (!this.store || !this.grantsRestored) return;
    this.store.save(this.grants.map(({ restored: _restored, ...grant }) => grant));
  }

  /** The chat's answer settles the request; no answer there leaves it to the panel (or the timeout). */
  private askInChat(chat: ChatAsk, approval: Approval, done: AbortSignal, settle: Pending['settle']): void {
    chat(approval, done).then(
      (decision) => {
        if (decision === undefined || done.aborted) return;
        settle(decision === 'deny' ? 'denied' : 'approved', undefined, 'chat', decision === 'approve-session');
      },
      (error: unknown) => {
        if (!done.aborted) this.log?.warn('could not ask in the chat; the panel still asks', { approval: approval.id, error: error instanceof Error ? error.message : String(error) });
      },
    );
  }

  /** Requests waiting now, oldest first. */
  list(): Approval[] {
    return [...this.pending.values()].map((p) => p.approval);
  }

  /** Refuses every waiting request (Sandpit is shutting down). */
  dispose(): void {
    for (const entry of [...this.pending.values()]) entry.settle('cancelled', SHUTDOWN_MESSAGE);
  }
}
