import type { ApprovalKind, ApprovalPolicy } from '../../shared/domain/approval';
import type { ApprovalSettings } from '../../shared/domain/settings';

/** What decides whether a call is asked about. */
export interface AskableCall {
  kind: ApprovalKind;
  /** The call would make a new session (sessions.create, or a first run that makes the default session). */
  newSession: boolean;
  /** It runs in a session with network access (environment policy packages or open). */
  networked: boolean;
}

const STRICTNESS: Record<ApprovalPolicy, number> = { free: 0, 'ask-new': 1, 'ask-every': 2 };

/**
 * The policy of one client: its own, else the default — or `floor` when that is stricter (what the client's
 * own configuration asks for, e.g. a Claude Desktop extension's setting: it can make Sandpit ask more, never less).
 */
export function policyFor(settings: ApprovalSettings, client: string | undefined, floor?: ApprovalPolicy): ApprovalPolicy {
  const set = client !== undefined && Object.hasOwn(settings.perClient, client) ? (settings.perClient[client] ?? settings.defaultPolicy) : settings.defaultPolicy;
  return floor !== undefined && STRICTNESS[floor] > STRICTNESS[set] ? floor : set;
}

/** Whether a call under `policy` must wait for the person's answer. */
export function needsApproval(policy: ApprovalPolicy, call: AskableCall): boolean {
  switch (policy) {
    case 'free':
      return false;
    case 'ask-every':
      return true;
    case 'ask-new':
      return call.kind === 'install' || call.kind === 'create-session' || call.newSession || call.networked;
  }
}
