import { ElicitResultSchema, EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ClientCapabilities, ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import type { Approval, ApprovalKind, ChatAsk, ChatDecision } from '../../shared/domain/approval';
import type { ToolExtra } from './tool-extra';

/** Longest piece of code the chat's question shows (the panel shows it all). */
export const CHAT_CODE_CHARS = 1_200;

/** The words of the choices, as the person reads them in the chat. */
export const CHAT_CHOICES: Record<ChatDecision, string> = {
  approve: 'Approve',
  deny: 'Deny',
  'approve-session': 'Approve for this session',
};

const WHAT: Record<ApprovalKind, string> = {
  execute: 'Code',
  'run-command': 'Command',
  'run-file': 'File',
  install: 'Packages',
  'check-packages': 'Packages',
  'create-session': 'Packages',
};

const NETWORK_WORDS: Record<NonNullable<Approval['network']>, string> = {
  none: 'none',
  packages: 'package indexes only',
  open: 'open (it can reach the internet)',
};

/** Whether the client said it can show a form to its person (`elicitation: {}` means form, as the spec says). */
export function canAskInChat(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  if (elicitation === undefined || elicitation === null) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

function abbreviated(code: string): string {
  if (code.length <= CHAT_CODE_CHARS) return code;
  return `${code.slice(0, CHAT_CODE_CHARS)}\n… (${code.length - CHAT_CODE_CHARS} more characters; the Sandpit panel shows all of it)`;
}

/** The form the chat shows: what would run, where, and the choices (a new session has no "for this session"). */
export function chatQuestion(approval: Approval): ElicitRequestFormParams {
  const code = approval.code === undefined ? '' : `\n\n${WHAT[approval.kind]}:\n${abbreviated(approval.code)}`;
  const facts = [
    approval.environment === undefined ? undefined : `Environment: ${approval.environment}`,
    approval.network === undefined ? undefined : `Network: ${NETWORK_WORDS[approval.network]}`,
  ].filter((line): line is string => line !== undefined);
  const where = facts.length === 0 ? '' : `\n${facts.join('\n')}`;
  const choices: ChatDecision[] = approval.sessionId === undefined ? ['approve', 'deny'] : ['approve', 'deny', 'approve-session'];
  return {
    mode: 'form',
    message: `Sandpit asks: may ${approval.client} do this?\n${approval.detail}.${where}${code}\n\nThe Sandpit panel asks the same; whichever you answer first decides.`,
    requestedSchema: {
      type: 'object',
      properties: {
        decision: {
          type: 'string',
          title: 'Your answer',
          oneOf: choices.map((choice) => ({ const: choice, title: CHAT_CHOICES[choice] })),
        },
      },
      required: ['decision'],
    },
  };
}

function decisionOf(value: unknown, offered: readonly string[]): ChatDecision | undefined {
  return typeof value === 'string' && offered.includes(value) ? (value as ChatDecision) : undefined;
}

/** How long the ping that spends request id 0 may take. */
const PING_TIMEOUT_MS = 5_000;

/**
 * The SDK's own client (1.32) ignores a cancellation of request id 0 (`if (!requestId) return`), and a server's
 * first request to its client has id 0: a question withdrawn there would stay on the person's screen. So before
 * the first question of a connection, the server spends id 0 on a ping (allowed both ways by the protocol).
 */
export class FirstRequest {
  private spent: Promise<void> | undefined;

  spend(extra: ToolExtra, signal: AbortSignal): Promise<void> {
    this.spent ??= extra
      .sendRequest({ method: 'ping' }, EmptyResultSchema, { timeout: PING_TIMEOUT_MS, signal })
      .then(
        () => undefined,
        () => undefined,
      );
    return this.spent;
  }
}

/**
 * Asks approval questions in the chat of the client whose tool call `extra` belongs to (the request goes out
 * tied to that call, so over HTTP it travels on the call's own stream). "Decline" in the chat is a denial;
 * "cancel" (dismissed) or an answer that is not one of the choices leaves the question to the panel.
 */
export function chatAsker(extra: ToolExtra, firstRequest: FirstRequest): ChatAsk {
  return async (approval, signal) => {
    await firstRequest.spend(extra, signal);
    const question = chatQuestion(approval);
    const offered = (question.requestedSchema.properties.decision as { oneOf: Array<{ const: string }> }).oneOf.map((o) => o.const);
    const timeout = Math.max(1_000, Date.parse(approval.expiresAt) - Date.now());
    const result = await extra.sendRequest({ method: 'elicitation/create', params: question }, ElicitResultSchema, { signal, timeout });
    if (result.action === 'decline') return 'deny';
    if (result.action !== 'accept') return undefined;
    return decisionOf(result.content?.decision, offered);
  };
}
