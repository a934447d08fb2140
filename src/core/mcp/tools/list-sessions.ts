import { z } from 'zod';
import { defineTool } from '../define-tool';
import { sessionLine, sessionSummarySchema, toSessionSummary } from '../session-output';

export const listSessions = defineTool({
  name: 'list_sessions',
  title: 'List sessions',
  description:
    'Lists your sandbox sessions: id, language, environment, when created and last used, status and number of runs, ' +
    "and the folders of the person's computer each one has (shared_folders: where they are, read-only or read-write). Only the person shares folders, in the Sandpit panel.",
  input: {},
  output: {
    sessions: z
      .array(
        sessionSummarySchema.extend({
          previews: z
            .array(z.object({ preview_id: z.string(), port: z.number().int(), url: z.string() }))
            .optional()
            .describe('Open previews of its web apps (preview_port): the person can open them from the Sandpit panel'),
        }),
      )
      .describe('Your sessions, oldest first'),
  },
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (_args, kit) => {
    const { sessions } = await kit.call('sessions.list', {});
    const { previews } = await kit.call('previews.list', {});
    const open = previews.filter((p) => p.state === 'open');
    const previewLines = (id: string): string[] =>
      open.filter((p) => p.sessionId === id).map((p) => `  preview of port ${p.port}: ${p.url} (the person can open it from the Sandpit panel)`);
    const text =
      sessions.length === 0
        ? 'No sessions yet. execute_code creates your default session on first use.'
        : sessions.flatMap((s) => [sessionLine(s), ...previewLines(s.id)]).join('\n');
    return {
      structured: {
        sessions: sessions.map((s) => {
          const mine = open.filter((p) => p.sessionId === s.id).map((p) => ({ preview_id: p.id, port: p.port, url: p.url }));
          return mine.length ? { ...toSessionSummary(s), previews: mine } : toSessionSummary(s);
        }),
      },
      text,
    };
  },
});
