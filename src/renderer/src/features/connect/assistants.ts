/** The assistants Connect has a ready-made setup for, in the order a person sees them. */
export const ASSISTANTS = [
  ['claudeDesktop', 'Claude Desktop'],
  ['cursor', 'Cursor'],
  ['vscode', 'VS Code'],
  ['claudeCode', 'Claude Code'],
] as const;
export type AssistantKey = (typeof ASSISTANTS)[number][0];
