import { z } from 'zod';
import { callTransportSchema } from './caller';

/**
 * Approvals (DESIGN §5): per-client policy. `free` runs freely; `ask-every` asks for every run, command,
 * file run, install, package check and new session; `ask-new` asks only for new sessions, installs and runs in sessions
 * with network access (environment policy packages or open). The panel itself is never asked.
 */
export const APPROVAL_POLICIES = ['free', 'ask-every', 'ask-new'] as const;
export const approvalPolicySchema = z
  .enum(APPROVAL_POLICIES)
  .describe('"free" = run freely; "ask-every" = ask for every run; "ask-new" = ask only for new sessions, installs and network');
export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>;

/** What an asked call would do. */
export const APPROVAL_KINDS = ['execute', 'run-command', 'run-file', 'install', 'check-packages', 'create-session'] as const;
export const approvalKindSchema = z.enum(APPROVAL_KINDS);
export type ApprovalKind = z.infer<typeof approvalKindSchema>;

/** Longest code (or command) an approval carries; the rest is cut with a marker. */
export const MAX_APPROVAL_CODE_CHARS = 20_000;

export const approvalSchema = z.object({
  id: z.string(),
  kind: approvalKindSchema,
  /** The client's own name (MCP clientInfo.name, "rest"). */
  client: z.string(),
  transport: callTransportSchema,
  sessionId: z.string().optional().describe('The session it would run in (absent when a new session would be made)'),
  code: z.string().optional().describe(`The code, command or package list, at most ${MAX_APPROVAL_CODE_CHARS} characters`),
  codeTruncated: z.boolean().describe('Whether code was cut'),
  detail: z.string().describe('What the call would do, in plain words'),
  auditId: z.number().int().optional().describe('The audit row of the call that waits (Activity shows it "waiting for approval")'),
  environment: z.string().optional().describe('The name of the environment of the session it would run in'),
  network: z.enum(['none', 'packages', 'open']).optional().describe('The network access of that session'),
  askedInChat: z.boolean().optional().describe('The same question is also asked in the client\'s chat (MCP elicitation): whichever answers first decides'),
  createdAt: z.string(),
  expiresAt: z.string().describe('When the request counts as denied if no one answers'),
});
export type Approval = z.infer<typeof approvalSchema>;

export const approvalDecisionSchema = z.enum(['approve', 'deny']);
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;

/** How a request ended: answered, not answered in time, or withdrawn by its caller (request cancelled). */
export const approvalOutcomeSchema = z.enum(['approved', 'denied', 'expired', 'cancelled']);
export type ApprovalOutcome = z.infer<typeof approvalOutcomeSchema>;

/** What the person chose in the chat (approvals in the chat, issue 23). */
export type ChatDecision = 'approve' | 'deny' | 'approve-session';

/**
 * Asks an approval question in the caller's chat (MCP elicitation). Resolves with the person's choice, or undefined
 * when the chat gave no answer (dismissed, closed, failed): the panel's prompt then still decides. `signal` aborts
 * when the question is settled elsewhere: the chat's question must be withdrawn then.
 */
export type ChatAsk = (approval: Approval, signal: AbortSignal) => Promise<ChatDecision | undefined>;

/** "Approve for this session" given in the chat: that assistant's later calls in the session are not asked about. */
export const sessionGrantSchema = z.object({
  client: z.string().describe("The assistant's name as it connected"),
  grantedAt: z.string().describe('When the person approved it (ISO 8601)'),
});
export type SessionGrant = z.infer<typeof sessionGrantSchema>;
