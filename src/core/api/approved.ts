import type { ApprovalKind } from '../../shared/domain/approval';
import type { Language } from '../../shared/domain/session';
import type { ApprovalSettings } from '../../shared/domain/settings';
import { needsApproval, policyFor } from '../approvals/approval-policy';
import type { ApprovalQueue } from '../approvals/approval-queue';
import { readWorkspaceFile } from '../sessions/session-files';
import type { SessionManager } from '../sessions/session-manager';
import type { DefaultSessions } from './default-sessions';
import { languageOfPath } from './language-of-path';
import { isPanel } from './panel-only';
import { MAX_RUN_FILE_BYTES } from './run-handlers';
import type { CallContext, Handlers } from './sandpit-api';

/** What a waiting MCP call reports as progress. */
export const WAITING_FOR_APPROVAL = 'waiting for approval in the Sandpit panel';

export interface ApprovalGate {
  queue: ApprovalQueue;
  /** The approval settings in effect now (read on every call, so changes apply at once). */
  settings(): ApprovalSettings;
  sessions: SessionManager;
  defaults: DefaultSessions;
}

type AskedMethods = 'sessions.create' | 'sessions.execute' | 'sessions.runCommand' | 'sessions.runFile' | 'packages.install';

interface Ask {
  kind: ApprovalKind;
  /** The session given by the caller, if any (checked to be theirs before anyone is asked). */
  sessionId: string | undefined;
  /** The language of the default session the call would use without a session id. */
  language: Language;
  /** What the person gets to read: the code, command or package list (a function when it must be fetched). */
  code?: string | ((sessionId: string | undefined) => Promise<string | undefined>);
  detail(where: string): string;
}

const LANGUAGE_NAMES: Record<Language, string> = { python: 'Python', javascript: 'JavaScript', bash: 'Bash' };

/**
 * A workspace file's text for the approval prompt, read with the run's own cap: once approved, exactly
 * this text runs. Undefined when it cannot be read (the run itself will say why).
 */
async function readFileForApproval(sessions: SessionManager, sessionId: string, path: string): Promise<string | undefined> {
  const runtime = sessions.runtimeOf(sessionId);
  try {
    const file = await readWorkspaceFile(runtime.options.docker, runtime.containerId, path, MAX_RUN_FILE_BYTES);
    return file.content.toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * The approval gate around the calls that run code, install packages or make sessions: under the
 * caller's policy it waits for the person's answer BEFORE the call runs, so a denied call never runs
 * (it throws DENIED; an audit wrapper outside this one records it as denied). The panel is never asked.
 */
export function withApprovals(handlers: Handlers, gate: ApprovalGate): Handlers {
  const { sessions, defaults } = gate;

  /** Resolves true when the person was asked and approved, false when the call needs no approval. */
  const check = async (context: CallContext, ask: Ask): Promise<boolean> => {
    if (isPanel(context)) return false;
    const principal = context.principal as string;
    // A session that is not the caller's is refused as missing, before anyone is bothered.
    if (ask.sessionId !== undefined) sessions.access(ask.sessionId, principal);
    const sessionId = ask.sessionId ?? defaults.current(principal, ask.language);
    const newSession = ask.kind === 'create-session' || sessionId === undefined;
    const networked = sessionId !== undefined && sessions.runtimeOf(sessionId).options.network !== undefined;
    const settings = gate.settings();
    if (!needsApproval(policyFor(settings, context.client), { kind: ask.kind, newSession, networked })) return false;
    const where =
      sessionId === undefined
        ? `in a new ${LANGUAGE_NAMES[ask.language]} session`
        : `in session ${sessionId}${networked ? ' (it has network access)' : ''}`;
    context.onWaiting?.(WAITING_FOR_APPROVAL);
    try {
      const code = typeof ask.code === 'function' ? await ask.code(sessionId) : ask.code;
      await gate.queue.request({
        kind: ask.kind,
        client: context.client ?? 'an unnamed client',
        transport: context.transport,
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(code === undefined ? {} : { code }),
        detail: ask.detail(where),
        timeoutMs: settings.timeoutSeconds * 1000,
        ...(context.signal ? { signal: context.signal } : {}),
      });
      return true;
    } finally {
      context.onWaiting?.(undefined);
    }
  };

  const gated: Pick<Handlers, AskedMethods> = {
    'sessions.create': async (input, context) => {
      const language = input.language ?? 'python';
      const deps = input.dependencies ?? [];
      await check(context, {
        kind: 'create-session',
        sessionId: undefined,
        language,
        ...(deps.length > 0 ? { code: deps.join('\n') } : {}),
        detail: () =>
          `Start a new ${input.environment ? `session from the environment "${input.environment}"` : `${LANGUAGE_NAMES[language]} session`}` +
          (deps.length > 0 ? ` and install ${deps.join(', ')} from the package index` : ''),
      });
      return handlers['sessions.create'](input, context);
    },
    'sessions.execute': async (input, context) => {
      const language = input.language ?? 'python';
      await check(context, { kind: 'execute', sessionId: input.sessionId, language, code: input.code, detail: (where) => `Run code ${where}` });
      return handlers['sessions.execute'](input, context);
    },
    'sessions.runCommand': async (input, context) => {
      await check(context, { kind: 'run-command', sessionId: input.sessionId, language: 'python', code: input.command, detail: (where) => `Run a shell command ${where}` });
      return handlers['sessions.runCommand'](input, context);
    },
    'sessions.runFile': async (input, context) => {
      let shown: string | undefined;
      const approved = await check(context, {
        kind: 'run-file',
        sessionId: input.sessionId,
        language: languageOfPath(input.path) ?? 'python',
        // The file as it is now: that is what the person approves, and what runs (not the file as it is later).
        code: async (id) => (shown = id === undefined ? undefined : await readFileForApproval(sessions, id, input.path)),
        detail: (where) => `Run the file ${input.path} ${where}`,
      });
      return handlers['sessions.runFile'](input, approved && shown !== undefined ? { ...context, approvedFileContent: shown } : context);
    },
    'packages.install': async (input, context) => {
      await check(context, {
        kind: 'install',
        sessionId: input.sessionId,
        language: 'python',
        code: input.packages.join('\n'),
        detail: (where) => `Install ${input.packages.join(', ')} from the package index ${where}`,
      });
      return handlers['packages.install'](input, context);
    },
  };
  return { ...handlers, ...gated };
}
