import { SandpitError } from '../../shared/api/errors';
import { MAX_APPROVAL_CODE_CHARS } from '../../shared/domain/approval';
import type { Approval, ApprovalDecision, ApprovalKind, ApprovalOutcome } from '../../shared/domain/approval';
import type { CallTransport } from '../../shared/domain/caller';
import type { EventBus } from '../events/event-bus';
import type { Logger } from '../log';
import { newId } from '../util/ids';

export const DENIED_MESSAGE = 'The person using Sandpit denied this run.';
export const CANCELLED_MESSAGE = 'The request was cancelled before anyone answered, so the run was not allowed.';
export const SHUTDOWN_MESSAGE = 'Sandpit shut down before anyone answered, so the run was not allowed.';

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
  /** The audit row of the call that waits. */
  auditId?: number;
  /** How long to wait for an answer; then the request counts as denied. */
  timeoutMs: number;
  /** The caller gave up (e.g. the MCP request was cancelled): the request is withdrawn. */
  signal?: AbortSignal;
}

interface Pending {
  approval: Approval;
  settle(outcome: ApprovalOutcome, message?: string): void;
}

/**
 * Calls waiting for the person's answer. `request` resolves when the person approves, and rejects with
 * DENIED when they deny, when no one answers in time, or when the caller withdraws. Every request
 * appears on the bus (`approval.requested`) and every end too (`approval.resolved`).
 */
export class ApprovalQueue {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly bus: EventBus,
    private readonly log?: Logger,
  ) {}

  request(request: ApprovalRequest): Promise<void> {
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
      createdAt: new Date(createdAt).toISOString(),
      expiresAt: new Date(createdAt + request.timeoutMs).toISOString(),
    };
    if (request.signal?.aborted) return Promise.reject(new SandpitError('DENIED', CANCELLED_MESSAGE, { approval: approval.id, decision: 'cancelled' }));
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => settle('cancelled');
      const timer = setTimeout(() => settle('expired'), request.timeoutMs);
      timer.unref();
      const settle = (outcome: ApprovalOutcome, message?: string): void => {
        if (!this.pending.delete(approval.id)) return;
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        this.log?.info('approval resolved', { approval: approval.id, client: approval.client, kind: approval.kind, outcome });
        this.bus.emit('approval.resolved', { id: approval.id, decision: outcome });
        if (outcome === 'approved') {
          resolve();
          return;
        }
        const why = message ?? (outcome === 'denied' ? DENIED_MESSAGE : outcome === 'expired' ? expiredMessage(request.timeoutMs) : CANCELLED_MESSAGE);
        reject(new SandpitError('DENIED', why, { approval: approval.id, decision: outcome }));
      };
      this.pending.set(approval.id, { approval, settle });
      request.signal?.addEventListener('abort', onAbort, { once: true });
      this.log?.info('waiting for approval', { approval: approval.id, client: approval.client, kind: approval.kind, sessionId: approval.sessionId });
      this.bus.emit('approval.requested', approval);
    });
  }

  /** The person's answer. False when the request is no longer waiting (answered, expired or withdrawn). */
  respond(id: string, decision: ApprovalDecision): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    entry.settle(decision === 'approve' ? 'approved' : 'denied');
    return true;
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
