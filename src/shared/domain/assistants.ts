import { z } from 'zod';
import { ASSISTANT_IDS } from './assistant-tag';
import type { AssistantId } from './assistant-tag';

export { ASSISTANT_ENV, ASSISTANT_HEADER, ASSISTANT_IDS, assistantIdOf } from './assistant-tag';
export type { AssistantId } from './assistant-tag';
export const assistantIdSchema = z.enum(ASSISTANT_IDS).describe('Which assistant: ' + ASSISTANT_IDS.join(', '));

export const ASSISTANT_LABELS: Record<AssistantId, string> = {
  'claude-desktop': 'Claude Desktop',
  'claude-code': 'Claude Code',
  cursor: 'Cursor',
  vscode: 'VS Code',
  windsurf: 'Windsurf',
  codex: 'Codex CLI',
  'gemini-cli': 'Gemini CLI',
  zed: 'Zed',
  'lm-studio': 'LM Studio',
};

/**
 * What Connect found for one assistant:
 * - `not-found`: its configuration folder is not on this computer;
 * - `not-connected`: found, Sandpit is not in its configuration;
 * - `connected`: Sandpit is in its configuration, as Connect would write it now;
 * - `outdated`: Sandpit is in its configuration, but with another command or data folder;
 * - `unreadable`: its configuration file does not parse (never overwritten; `problem` says how to fix it).
 */
export const assistantStateSchema = z.enum(['not-found', 'not-connected', 'connected', 'outdated', 'unreadable']);
export type AssistantState = z.infer<typeof assistantStateSchema>;

export const assistantStatusSchema = z.object({
  id: assistantIdSchema,
  label: z.string(),
  state: assistantStateSchema,
  configPath: z.string().describe('The configuration file Connect writes'),
  format: z.enum(['json', 'jsonc', 'toml']),
  problem: z.string().optional().describe('Why the file cannot be changed, and how to fix it'),
  undoable: z.boolean().describe('Connect wrote it and kept the file as it was before'),
  restart: z.string().describe('What to do after connecting, in plain words'),
  deepLink: z.string().optional().describe("The assistant's own install link (a second way to connect)"),
});
export type AssistantStatus = z.infer<typeof assistantStatusSchema>;

export const assistantChangeSchema = z.object({
  status: assistantStatusSchema,
  changed: z.boolean().describe('False when the file already said this'),
  before: z.string().describe('The file before (empty when there was none)'),
  after: z.string().describe('The file now (empty when it was removed)'),
  backupPath: z.string().optional().describe('Where the file as it was before is kept'),
  message: z.string().describe('What happened, in plain words'),
});
export type AssistantChange = z.infer<typeof assistantChangeSchema>;
