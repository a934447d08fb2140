import type { ApprovalQueue } from '../approvals/approval-queue';
import type { Handlers } from './api-types';

type ApprovalMethods = 'approvals.list' | 'approvals.respond' | 'approvals.sessionGrants' | 'approvals.revokeSessionGrant';

/** The approval prompts (the policy table lets only the panel see and answer them: a client never approves its own runs). */
export function approvalHandlers(queue: ApprovalQueue): Pick<Handlers, ApprovalMethods> {
  return {
    'approvals.list': async () => ({ pending: queue.list() }),
    'approvals.respond': async ({ id, decision }) => ({ ok: queue.respond(id, decision) }),
    'approvals.sessionGrants': async ({ sessionId }) => ({ grants: queue.sessionGrants(sessionId) }),
    'approvals.revokeSessionGrant': async ({ sessionId, client }) => ({ revoked: queue.revokeSessionGrant(sessionId, client) }),
  };
}
