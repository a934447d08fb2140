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
    sessions: z.array(sessionSummarySchema).describe('Your sessions, oldest first'),
  },
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (_args, kit) => {
    const { sessions } = await kit.call('sessions.list', {});
    const text =
      sessions.length === 0
        ? 'No sessions yet. execute_code creates your default session on first use.'
        : sessions.map((s) => sessionLine(s)).join('\n');
    return { structured: { sessions: sessions.map(toSessionSummary) }, text };
  },
});
