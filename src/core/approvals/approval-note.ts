import { SandpitError } from '../../shared/api/errors';
import type { ApprovalAnswer } from './approval-queue';

/** Where an answer came from, in the words the audit log shows (Activity, exports). */
function where(answeredIn: 'panel' | 'chat', client: string): string {
  return answeredIn === 'chat' ? `in the chat by ${client}` : 'in the panel';
}

/** The audit row's note for an approved call, e.g. "Approved in the chat by Claude Code". */
export function approvedNote(answer: ApprovalAnswer, client: string): string {
  return `Approved ${where(answer.answeredIn, client)}${answer.forSession ? ', for the rest of this session' : ''}`;
}

/** The note for a call asked in a session whose questions the person approved for the rest of it in the chat. */
export function grantedNote(client: string): string {
  return `Approved earlier in the chat by ${client}, for the rest of this session`;
}

/** The note for a call that was not allowed: denied (where), not answered in time, or withdrawn. */
export function refusedNote(error: unknown, client: string): string | undefined {
  if (!(error instanceof SandpitError) || error.code !== 'DENIED') return undefined;
  const details = (error.details ?? {}) as { decision?: unknown; answeredIn?: unknown };
  switch (details.decision) {
    case 'denied':
      return `Denied ${where(details.answeredIn === 'chat' ? 'chat' : 'panel', client)}`;
    case 'expired':
      return 'Not answered in time';
    case 'cancelled':
      return 'Withdrawn before anyone answered';
    default:
      return undefined;
  }
}
