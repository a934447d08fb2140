import { z } from 'zod';

/** One host a session tried to reach, and whether the egress proxy let it through (and why not). */
export const egressEntrySchema = z.object({
  time: z.string(),
  sessionId: z.string().optional(),
  sessionName: z.string().optional().describe('The session\'s name when the entry was made (it stays once the session has ended)'),
  host: z.string(),
  port: z.number().int(),
  allowed: z.boolean(),
  reason: z.string().optional().describe('Why it was refused, in plain words'),
  reasonCode: z.string().optional(),
  connected: z.boolean().optional().describe('Let through: whether it reached the host (absent while it is connecting)'),
  answer: z.string().optional().describe("Let through: what the host answered, or why the connection failed, in plain words"),
  // Secrets (issue 18): a request the egress proxy put secrets in (names only, never a value).
  secrets: z.array(z.string()).optional().describe('The secrets put in this request, by name'),
  secretWords: z.string().optional().describe('"used secret openai for api.openai.com"'),
});
export type EgressEntry = z.infer<typeof egressEntrySchema>;
