import { z } from 'zod';
import { LANGUAGES } from '../../../shared/domain/session';
import { defineTool } from '../define-tool';
import { listEnvironments } from '../environments';

export const listEnvironmentsTool = defineTool({
  name: 'list_environments',
  title: 'List environments',
  description:
    'Lists the environments sessions can be created from (create_session environment=…): name, language and image.',
  input: {},
  output: {
    environments: z
      .array(
        z.object({
          name: z.string().describe('Pass as environment to create_session'),
          language: z.enum(LANGUAGES).describe('Language of its sessions'),
          image: z.string().describe('Sandbox image it runs on'),
        }),
      )
      .describe('Available environments'),
  },
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (_args, kit) => {
    const environments = listEnvironments(kit.sandpit.config.images);
    const text =
      environments.length === 0
        ? 'No environments: no sandbox image is built yet (run "npm run build:images" where Sandpit is installed).'
        : environments.map((e) => `${e.name}: ${e.language} (image ${e.image})`).join('\n');
    return { structured: { environments }, text };
  },
});
