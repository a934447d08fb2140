/**
 * How a handshake names the assistant that started `sandpit mcp` from a configuration Connect wrote.
 * (No zod here: `sandpit mcp` bridging loads this and must start at once.)
 */

/** The assistants Connect can set up by itself, in the order a person sees them. */
export const ASSISTANT_IDS = [
  'claude-desktop',
  'claude-code',
  'cursor',
  'vscode',
  'windsurf',
  'codex',
  'gemini-cli',
  'zed',
  'lm-studio',
] as const;
export type AssistantId = (typeof ASSISTANT_IDS)[number];

/** The environment variable a configuration written by Connect sets, so the handshake names its assistant. */
export const ASSISTANT_ENV = 'SANDPIT_ASSISTANT';
/** The header `sandpit mcp` sends when it bridges to a running Sandpit, with the same value. */
export const ASSISTANT_HEADER = 'x-sandpit-assistant';

/** The assistant a tag names, when it is one Connect knows (anything else is ignored). */
export function assistantIdOf(value: unknown): AssistantId | undefined {
  return typeof value === 'string' && (ASSISTANT_IDS as readonly string[]).includes(value)
    ? (value as AssistantId)
    : undefined;
}

/** The environment variable with the approval policy an assistant's own configuration asks for (at least this strict). */
export const APPROVAL_ENV = 'SANDPIT_APPROVAL';
/** The header `sandpit mcp` sends it in when it bridges to a running Sandpit. */
export const APPROVAL_HEADER = 'x-sandpit-approval';

/** The header `sandpit mcp` sends when it bridges a stdio client to a running Sandpit: its runs say stdio, as the client connected. */
export const BRIDGE_HEADER = 'x-sandpit-bridge';
