import { z } from 'zod';
import { defineTool } from '../define-tool';
import { withProgress } from '../progress-ticker';
import { sessionIdField } from '../tool-fields';

export const installPackages = defineTool({
  name: 'install_packages',
  title: 'Install packages',
  description:
    'Installs packages into a session: pip for Python and bash sessions (e.g. ["requests", "numpy==2.1.3"]), npm for JavaScript sessions (e.g. ["lodash@4"]); they are importable right away. ' +
    'The session itself stays offline: a short-lived helper does the download. Check first with check_packages to save time.',
  input: {
    packages: z
      .array(z.string().min(1).max(200))
      .min(1)
      .max(100)
      .describe('pip requirement specs (a name, optionally with extras and a version, e.g. "pandas>=2"), or npm specs in JavaScript sessions (e.g. "lodash@^4"); at most 100, each at most 200 characters.'),
    session_id: sessionIdField,
  },
  output: {
    results: z
      .array(
        z.object({
          package: z.string().describe('The spec as given'),
          ok: z.boolean().describe('Whether it installed'),
          version: z.string().optional().describe('Installed version'),
          error: z.string().optional().describe('Why it failed'),
        }),
      )
      .describe('One entry per package'),
  },
  // Only adds packages; installing the same ones again changes nothing. Downloads from the package index: open world.
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: async (args, kit, extra) => {
    const { results } = await withProgress(extra, `installing ${args.packages.join(' ')}`, kit.log, () =>
      kit.call('packages.install', { sessionId: args.session_id, packages: args.packages }),
    );
    const lines = results.map((r) =>
      r.ok
        ? `installed ${r.package}${r.version ? ` (${r.version})` : ''}`
        : `FAILED ${r.package}: ${r.error ?? 'unknown error'}`,
    );
    return { structured: { results }, text: lines.join('\n') };
  },
});
