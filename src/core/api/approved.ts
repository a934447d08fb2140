import type { MethodName, MethodParsedInput } from '../../shared/api/contract';
import { languageLabel } from '../../shared/domain/languages';
import type { Language } from '../../shared/domain/languages';
import type { Environment } from '../../shared/domain/environment';
import type { ApprovalSettings } from '../../shared/domain/settings';
import { approvedNote, grantedNote, refusedNote } from '../approvals/approval-note';
import { needsApproval, policyFor } from '../approvals/approval-policy';
import type { ApprovalQueue } from '../approvals/approval-queue';
import { MAX_RUN_FILE_BYTES } from '../sessions/session-types';
import type { SessionManager } from '../sessions/session-manager';
import { isPanel } from './api-types';
import type { CallContext } from './api-types';
import { environmentOpenings } from './environment-openings';
import type { ApprovalRule } from './method-policy';

/** What a waiting MCP call reports as progress. */
export const WAITING_FOR_APPROVAL = 'waiting for approval in the Sandpit panel';
/** The same, when the question is asked in the chat too. */
export const WAITING_FOR_APPROVAL_IN_CHAT = 'waiting for approval in the chat or the Sandpit panel';

export interface ApprovalGate {
  queue: ApprovalQueue;
  /** The approval settings in effect now (read on every call, so changes apply at once). */
  settings(): ApprovalSettings;
  sessions: Pick<SessionManager, 'access'>;
  /** The caller's default session of a language, if it exists (never creates one). */
  defaultSession(principal: string, language: Language): string | undefined;
  /** The environment a new session would start from (by id or name), to say what it opens; undefined: none such. */
  environment?(reference: string): Promise<Pick<Environment, 'network' | 'allowedHosts' | 'folders'> | undefined>;
}

/** What a new session from the environment the call names would open ('' for none, or no environment). */
async function openingsOf(gate: ApprovalGate, input: unknown): Promise<string> {
  const reference = (input as { environment?: unknown }).environment;
  if (typeof reference !== 'string' || !gate.environment) return '';
  const environment = await gate.environment(reference).catch(() => undefined);
  return environment ? environmentOpenings(environment) : '';
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
  /** Told how the question was answered and where, for the audit row (e.g. "Approved in the chat by Claude Code"). */
  answered?: (note: string) => void,
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
  const client = context.client ?? 'an unnamed client';
  // "Approve for this session" in the chat: later questions of this caller in that session are not asked again.
  if (sessionId !== undefined && gate.queue.grantedForSession(principal, sessionId, context.runOwner)) {
    answered?.(grantedNote(client));
    return {};
  }
  const writes = writable.length > 0 ? `; it can change ${writable.map((f) => f.hostPath).join(', ')} on this computer` : '';
  const secretNames = info?.secrets?.map((s) => s.name) ?? [];
  const uses = secretNames.length > 0 ? `; its requests can use the secret${secretNames.length > 1 ? 's' : ''} ${secretNames.join(', ')} (Sandpit adds ${secretNames.length > 1 ? 'them' : 'it'} for ${secretNames.length > 1 ? 'their' : 'its'} hosts)` : '';
  const where =
    rule.kind === 'create-session'
      ? await openingsOf(gate, input)
      : sessionId === undefined || info === undefined
      ? `in a new ${languageLabel(language)} session`
      : `in the session "${info.name}"${networked ? ' (it has network access)' : ''}${writes}${uses}`;
  const chat = settings.askInChat !== false ? context.askInChat : undefined;
  context.onWaiting?.(chat ? WAITING_FOR_APPROVAL_IN_CHAT : WAITING_FOR_APPROVAL);
  try {
    const shown =
      rule.shows === 'file'
        ? sessionId === undefined
          ? undefined
          : await readFileForApproval(gate, principal, sessionId, (input as { path: string }).path)
        : rule.shows(input);
    const answer = await gate.queue.request({
      kind: rule.kind,
      client,
      transport: context.transport,
      ...(sessionId === undefined ? {} : { sessionId }),
      ...(shown === undefined ? {} : { code: shown }),
      detail: rule.detail(input, where),
      ...(info?.environmentName === undefined ? {} : { environment: info.environmentName }),
      ...(info === undefined ? {} : { network: info.network }),
      ...(context.auditId === undefined ? {} : { auditId: context.auditId }),
      timeoutMs: settings.timeoutSeconds * 1000,
      ...(context.signal ? { signal: context.signal } : {}),
      ...(chat ? { chat } : {}),
    });
    answered?.(approvedNote(answer, client));
    if (answer.forSession && sessionId !== undefined) gate.queue.grantSession(principal, sessionId, client, context.runOwner);
    return rule.shows === 'file' && shown !== undefined ? { approvedText: shown } : {};
  } catch (error) {
    const note = refusedNote(error, client);
    if (note !== undefined) answered?.(note);
    throw error;
  } finally {
    context.onWaiting?.(undefined);
  }
}
