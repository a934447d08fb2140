import { z } from 'zod';
import { assistantIdSchema } from './assistants';
import { callTransportSchema } from './caller';

/** Stands for the access token in copy-paste configs; the panel puts the real one in after connect.revealToken. */
export const TOKEN_PLACEHOLDER = '<SANDPIT_TOKEN>';

export const connectedClientSchema = z.object({
  name: z.string().describe("The client's name from its initialize request"),
  transport: callTransportSchema,
  connectedAt: z.string(),
  mcpSessionId: z.string().optional(),
  assistant: assistantIdSchema.optional().describe('The assistant it is, when Connect set it up or its name is a known one'),
});
export type ConnectedClient = z.infer<typeof connectedClientSchema>;

export const stdioCommandSchema = z.object({
  command: z.string(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()).optional().describe('Needed when the data folder is not the default one'),
});
export type StdioCommand = z.infer<typeof stdioCommandSchema>;

/** Copy-paste text for one assistant: over stdio (`sandpit mcp`) and, where it can, over HTTP. */
export const assistantConfigSchema = z.object({
  where: z.string().describe('Where to paste it, in plain words'),
  stdio: z.string(),
  http: z.string().optional().describe(`Uses ${TOKEN_PLACEHOLDER} for the access token`),
});
export type AssistantConfig = z.infer<typeof assistantConfigSchema>;

export const connectInfoSchema = z.object({
  serving: z.boolean().describe('Whether the local HTTP server runs now (else the URLs are where it would be)'),
  mcpUrl: z.string(),
  panelUrl: z.string().describe('The web panel, without its token'),
  tokenFile: z.string(),
  stdioCommand: stdioCommandSchema,
  configs: z.object({
    claudeDesktop: assistantConfigSchema,
    cursor: assistantConfigSchema,
    vscode: assistantConfigSchema,
    claudeCode: assistantConfigSchema,
  }),
  clients: z.array(connectedClientSchema).describe('MCP clients connected now'),
  seenClients: z
    .array(z.string())
    .describe('The name of every MCP client that has connected since Sandpit started, exactly as it connected (what a per-assistant approval rule matches)'),
});
export type ConnectInfo = z.infer<typeof connectInfoSchema>;
