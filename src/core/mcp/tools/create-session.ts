import { z } from 'zod';
import { DEFAULT_LANGUAGE, LANGUAGES } from '../../../shared/domain/languages';
import { defineTool } from '../define-tool';
import { withProgress } from '../progress-ticker';
import { sessionLine, sessionSummarySchema, toSessionSummary } from '../session-output';

export const createSession = defineTool({
  name: 'create_session',
  title: 'Create a session',
  description:
    'Creates a new sandbox session (its own variables, files and packages) and returns its session_id. ' +
    'Start it from an environment (see list_environments: e.g. one with data-science packages the person prepared) by its id or name; ' +
    'an environment that is not built yet is built first (progress is reported). ' +
    'You only need this for a second, separate workspace, another environment or packages installed up front: the other tools use your default session when session_id is left out. ' +
    "A new session has no folders of the person's computer: only the person shares one, in the Sandpit panel (list_sessions shows them, under /workspace/shared).",
  input: {
    environment: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe('Environment to start from, by id or name (see list_environments); default: the built-in one of the language.'),
    language: z.enum(LANGUAGES).optional().describe("Language of the session (default: the environment's, else python)."),
    name: z.string().min(1).max(64).optional().describe('A short name to show for the session in the Sandpit panel, e.g. "data cleaning".'),
    dependencies: z
      .array(z.string().min(1).max(200))
      .max(100)
      .optional()
      .describe(
        'Packages to install before the session is handed out, e.g. ["numpy", "pandas==2.2.3"] (pip names and versions; npm for JavaScript); at most 100, each at most 200 characters.',
      ),
    timeout_minutes: z
      .number()
      .int()
      .min(1)
      .max(24 * 60)
      .optional()
      .describe('Stop the session after this many idle minutes (default 30).'),
    keep: z
      .boolean()
      .optional()
      .describe(
        'Keep the session across a restart of Sandpit (default false): its files and installed packages stay and it is listed as paused, resuming on first use; variables do not survive a restart. A kept session is paused, not stopped, when idle.',
      ),
    secrets: z
      .array(z.string().min(1).max(40))
      .max(20)
      .optional()
      .describe(
        "Leave this out: only the person attaches secrets to a session, in the Sandpit panel, and a call that names any is refused. A session uses its environment's secrets by itself (see list_environments).",
      ),
  },
  output: sessionSummarySchema.shape,
  // Adds a session and changes nothing else. Builds and dependencies fetch from the package index: open world.
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: async (args, kit, extra) => {
    const what = [
      `starting a ${args.environment ? `session from "${args.environment}"` : `${args.language ?? DEFAULT_LANGUAGE} session`}`,
      args.dependencies?.length ? `and installing ${args.dependencies.join(' ')}` : '',
    ]
      .filter(Boolean)
      .join(' ');
    const info = await withProgress(extra, what, kit.log, () =>
      kit.call('sessions.create', {
        environment: args.environment,
        language: args.language,
        name: args.name,
        dependencies: args.dependencies,
        idleTimeoutMinutes: args.timeout_minutes,
        ...(args.keep ? { keep: true } : {}),
        // Passed on as asked, so the policy refuses it in its own words rather than it being dropped without a word.
        ...(args.secrets ? { secrets: args.secrets } : {}),
      }),
    );
    return { structured: toSessionSummary(info), text: `Created session ${sessionLine(info)}` };
  },
});
