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

/** The policy of one client: its own, else the default. */
export function policyFor(settings: ApprovalSettings, client: string | undefined): ApprovalPolicy {
  if (client !== undefined && Object.hasOwn(settings.perClient, client)) return settings.perClient[client] ?? settings.defaultPolicy;
  return settings.defaultPolicy;
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
