import type { ApprovalQueue } from '../approvals/approval-queue';
import { requirePanel } from './panel-only';
import type { Handlers } from './sandpit-api';

type ApprovalMethods = 'approvals.list' | 'approvals.respond';

/** The approval prompts: only the panel sees them and answers them (a client never approves its own runs). */
export function approvalHandlers(queue: ApprovalQueue): Pick<Handlers, ApprovalMethods> {
  return {
    'approvals.list': async (_input, context) => {
      requirePanel(context, 'see approval requests');
      return { pending: queue.list() };
    },
    'approvals.respond': async ({ id, decision }, context) => {
      requirePanel(context, 'answer approval requests');
      return { ok: queue.respond(id, decision) };
    },
  };
}
