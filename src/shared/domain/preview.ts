import { z } from 'zod';

export const previewIdSchema = z
  .string()
  .regex(/^prv-[a-z0-9]{6,40}$/)
  .describe('Preview id (from preview_port)');

export const previewInfoSchema = z.object({
  id: previewIdSchema,
  sessionId: z.string(),
  port: z.number().int().describe('The port inside the sandbox'),
  path: z.string().describe('The page it opens at'),
  url: z.string().describe('The link that opens it (it carries the capability: only the first open needs it)'),
  origin: z.string().describe("Its own origin on 127.0.0.1 (never the panel's or the MCP endpoint's)"),
  state: z.enum(['open', 'ended']),
  openedAt: z.string(),
  openedBy: z.string().describe('Who opened it (the client\'s name, or "panel")'),
  endedAt: z.string().optional(),
  endedBy: z.string().optional().describe('Why it ended, in plain words'),
});
export type PreviewInfo = z.infer<typeof previewInfoSchema>;

export const listeningPortSchema = z.object({
  port: z.number().int(),
  address: z.string().describe('The address it listens on inside the sandbox (0.0.0.0, 127.0.0.1, ::)'),
});
export type ListeningPort = z.infer<typeof listeningPortSchema>;

/** The plain words a person (or an agent) reads for a port that cannot exist. */
const PORT_RANGE = 'a port is a whole number from 1 to 65535';

/** A port inside a sandbox, refused in those words when it cannot exist (the panel, REST and MCP alike). */
export const sandboxPortSchema = z.number().int(PORT_RANGE).min(1, PORT_RANGE).max(65_535, PORT_RANGE);

/** preview_port's input but its session (the contract adds its own session id field). */
export const openPreviewInputSchema = z.object({
  port: sandboxPortSchema.describe('The port the app listens on inside the sandbox'),
  path: z.string().max(2_048).optional().describe('The page to open (default: /)'),
  waitSeconds: z
    .number()
    .min(0)
    .max(60)
    .default(0)
    .describe('Wait up to this long for something to listen on the port'),
});
