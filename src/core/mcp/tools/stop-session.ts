import { z } from 'zod';
import { defineTool } from '../define-tool';

export const stopSession = defineTool({
  name: 'stop_session',
  title: 'Stop a session',
  description:
    'Stops a session and removes its sandbox: its variables, files and installed packages are gone (files saved as artifacts stay readable).',
  input: {
    session_id: z.string().min(1).max(64).describe('The session to stop (from create_session or list_sessions).'),
  },
  output: {
    session_id: z.string().describe('The session that was stopped'),
    stopped: z.boolean().describe('true once it is gone'),
  },
  // Throws away the session's state; stopping it again changes nothing more.
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run: async (args, kit) => {
    const out = await kit.call('sessions.stop', { sessionId: args.session_id });
    return {
      structured: { session_id: out.sessionId, stopped: out.stopped },
      text: `Stopped session ${out.sessionId}.`,
    };
  },
});
