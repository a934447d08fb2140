import { z } from 'zod';
import { defineTool } from '../define-tool';
import { sessionIdField } from '../tool-fields';

export const checkPackages = defineTool({
  name: 'check_packages',
  title: 'Check packages',
  description:
    'Tells whether packages are installed in a session (pip packages in Python and bash sessions, npm packages in JavaScript sessions), and their versions, without installing anything. ' +
    'It starts a program in the session, so it is in the audit log, and the person may be asked first (as for every run).',
  input: {
    packages: z
      .array(z.string().min(1).max(200))
      .min(1)
      .max(200)
      .describe('Package names to check, e.g. ["numpy", "requests"]; at most 200, each at most 200 characters.'),
    session_id: sessionIdField,
  },
  output: {
    packages: z
      .array(
        z.object({
          name: z.string().describe('Package name'),
          installed: z.boolean().describe('Whether it is installed'),
          version: z.string().optional().describe('Installed version'),
        }),
      )
      .describe('One entry per package'),
  },
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (args, kit) => {
    const { packages } = await kit.call('packages.check', { sessionId: args.session_id, packages: args.packages });
    const text = packages
      .map((p) =>
        p.installed ? `${p.name}: installed${p.version ? ` (${p.version})` : ''}` : `${p.name}: not installed`,
      )
      .join('\n');
    return { structured: { packages }, text };
  },
});
