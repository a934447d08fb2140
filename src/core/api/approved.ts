import type { MethodName, MethodParsedInput } from '../../shared/api/contract';
import { languageLabel } from '../../shared/domain/runtimes';
import type { Language } from '../../shared/domain/runtimes';
import type { ApprovalSettings } from '../../shared/domain/settings';
import { needsApproval, policyFor } from '../approvals/approval-policy';
import type { ApprovalQueue } from '../approvals/approval-queue';
import { MAX_RUN_FILE_BYTES } from '../sessions/session';
import type { SessionManager } from '../sessions/session-manager';
import { isPanel } from './api-types';
import type { CallContext } from './api-types';
import type { ApprovalRule } from './method-policy';

/** What a waiting MCP call reports as progress. */
export const WAITING_FOR_APPROVAL = 'waiting for approval in the Sandpit panel';

export interface ApprovalGate {
  queue: ApprovalQueue;
  /** The approval settings in effect now (read on every call, so changes apply at once). */
  settings(): ApprovalSettings;
  sessions: Pick<SessionManager, 'access'>;
  /** The caller's default session of a language, if it exists (never creates one). */
  defaultSession(principal: string, language: Language): string | undefined;
}

/**
 * A workspace file's text for the approval prompt, read through the session with the run's own cap:
 * once approved, exactly this text runs. Undefined when it cannot be read (the run itself will say why).
 */
async function readFileForApproval(gate: ApprovalGate, principal: string, sessionId: string, path: string): Promise<string | undefined> {
  try {
    const file = await gate.sessions.access(sessionId, principal).readFile(path, MAX_RUN_FILE_BYTES);
    return file.content.toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * Asks the person BEFORE the call runs when the caller's policy says so: a denied call never runs (it
 * throws DENIED; the audit wrapper records it as denied). The panel is never asked. Resolves with the
 * text the person approved when the rule shows a file (run_file runs exactly that text).
 */
export async function askIfNeeded<M extends MethodName>(
  gate: ApprovalGate,
  rule: ApprovalRule<M>,
  input: MethodParsedInput<M>,
  context: CallContext,
): Promise<{ approvedText?: string }> {
  if (isPanel(context)) return {};
  const principal = context.principal as string;
  const language = rule.language(input);
  const given = rule.sessionId(input);
  // A session that is not the caller's is refused as missing, before anyone is bothered.
  const givenInfo = given === undefined ? undefined : gate.sessions.access(given, principal).info();
  const sessionId = rule.kind === 'create-session' ? undefined : (given ?? gate.defaultSession(principal, language));
  const info = givenInfo ?? (sessionId === undefined ? undefined : gate.sessions.access(sessionId, principal).info());
  const networked = info !== undefined && info.network !== 'none';
  const settings = gate.settings();
  const newSession = rule.kind === 'create-session' || sessionId === undefined;
  // A session that may change folders of this computer: asked about when the setting says so, whatever the policy.
  const writable = info?.folders.filter((f) => f.mode === 'rw') ?? [];
  const askWritable = settings.askWritableFolders === true && writable.length > 0 && rule.kind !== 'create-session';
  // Secrets (issue 18): likewise for a session whose requests can carry a secret, when the setting says so.
  const askSecrets = settings.askSecretSessions === true && (info?.secrets?.length ?? 0) > 0 && rule.kind !== 'create-session';
  if (!askWritable && !askSecrets && !needsApproval(policyFor(settings, context.client, context.approvalFloor), { kind: rule.kind, newSession, networked })) return {};
  const writes = writable.length > 0 ? `; it can change ${writable.map((f) => f.hostPath).join(', ')} on this computer` : '';
  const secretNames = info?.secrets?.map((s) => s.name) ?? [];
  const uses = secretNames.length > 0 ? `; its requests can use the secret${secretNames.length > 1 ? 's' : ''} ${secretNames.join(', ')} (Sandpit adds ${secretNames.length > 1 ? 'them' : 'it'} for ${secretNames.length > 1 ? 'their' : 'its'} hosts)` : '';
  const where =
    sessionId === undefined || info === undefined
      ? `in a new ${languageLabel(language)} session`
      : `in the session "${info.name}"${networked ? ' (it has network access)' : ''}${writes}${uses}`;
  context.onWaiting?.(WAITING_FOR_APPROVAL);
  try {
    const shown =
      rule.shows === 'file'
        ? sessionId === undefined
          ? undefined
          : await readFileForApproval(gate, principal, sessionId, (input as { path: string }).path)
        : rule.shows(input);
    await gate.queue.request({
      kind: rule.kind,
      client: context.client ?? 'an unnamed client',
      transport: context.transport,
      ...(sessionId === undefined ? {} : { sessionId }),
      ...(shown === undefined ? {} : { code: shown }),
      detail: rule.detail(input, where),
      ...(context.auditId === undefined ? {} : { auditId: context.auditId }),
      timeoutMs: settings.timeoutSeconds * 1000,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    return rule.shows === 'file' && shown !== undefined ? { approvedText: shown } : {};
  } finally {
    context.onWaiting?.(undefined);
  }
}
