import { z } from 'zod';
import { LANGUAGES } from '../../../shared/domain/session';
import { defineTool } from '../define-tool';
import { resolveEnvironment } from '../environments';
import { withProgress } from '../progress-ticker';
import { sessionLine, sessionSummarySchema, toSessionSummary } from '../session-output';

export const createSession = defineTool({
  name: 'create_session',
  title: 'Create a session',
  description:
    'Creates a new sandbox session (its own variables, files and packages) and returns its session_id. ' +
    'You only need this for a second, separate workspace or for packages installed up front: the other tools use your default session when session_id is left out.',
  input: {
    language: z.enum(LANGUAGES).optional().describe('Language of the session (default python).'),
    environment: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe('Environment to start from (see list_environments); default: the plain Python environment.'),
    dependencies: z
      .array(z.string().min(1).max(200))
      .max(100)
      .optional()
      .describe(
        'Packages to install before the session is handed out, e.g. ["numpy", "pandas==2.2.3"] (pip names and versions).',
      ),
    timeout_minutes: z
      .number()
      .int()
      .min(1)
      .max(24 * 60)
      .optional()
      .describe('Stop the session after this many idle minutes (default 30).'),
  },
  output: sessionSummarySchema.shape,
  // Adds a session and changes nothing else. Dependencies are fetched from the package index: open world.
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: async (args, kit, extra) => {
    const language = resolveEnvironment(args.environment, args.language);
    const what = args.dependencies?.length
      ? `starting a ${language} session and installing ${args.dependencies.join(' ')}`
      : `starting a ${language} session`;
    const info = await withProgress(extra, what, kit.log, () =>
      kit.call('sessions.create', {
        language,
        dependencies: args.dependencies,
        idleTimeoutMinutes: args.timeout_minutes,
      }),
    );
    return { structured: toSessionSummary(info), text: `Created session ${sessionLine(info)}` };
  },
});
