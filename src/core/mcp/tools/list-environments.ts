import { z } from 'zod';
import { ENVIRONMENT_STATES, NETWORK_POLICY_MEANINGS } from '../../../shared/domain/environment';
import type { EnvironmentView } from '../../../shared/domain/environment';
import { LANGUAGES } from '../../../shared/domain/languages';
import { MANAGER_IDS, allPackages } from '../../../shared/domain/package-managers';
import { defineTool } from '../define-tool';
import { secretOfSessionSchema, secretsOf, secretsPhrase } from '../session-output';

const environmentSummarySchema = z.object({
  id: z.string().describe('Pass as environment to create_session (its name works too)'),
  name: z.string().describe('The name the person gave it'),
  language: z.enum(LANGUAGES).describe('Language of its sessions'),
  description: z.string().describe('What it is for'),
  packages: z.array(z.string()).describe(`Packages it has (${MANAGER_IDS.join(', ')}), on top of its base`),
  network: z.enum(['none', 'packages', 'open']).describe('Network of its sessions: none, package indexes only, or open'),
  status: z.enum(ENVIRONMENT_STATES).describe('ready | building | failed | not-built (built on first use)'),
  status_message: z.string().describe('The status in plain words (for failed: why and what to do)'),
  built_in: z.boolean().describe('A preset that comes with Sandpit'),
  secrets: z.array(secretOfSessionSchema).optional().describe('Secrets its sessions can use (network "packages" only); only the person adds them, in the Sandpit panel'),
});

function summary(env: EnvironmentView): z.infer<typeof environmentSummarySchema> {
  return {
    id: env.id,
    name: env.name,
    language: env.language,
    description: env.description ?? '',
    packages: allPackages(env.packages),
    network: env.network,
    status: env.status.state,
    status_message: env.status.message,
    built_in: env.preset,
    ...(env.secrets?.length ? { secrets: secretsOf(env.secrets) } : {}),
  };
}

export const listEnvironmentsTool = defineTool({
  name: 'list_environments',
  title: 'List environments',
  description:
    'Lists the environments sessions can be created from (create_session environment=…): the built-in ones and those the person made in the Sandpit panel, ' +
    'with their language, packages, network policy and whether they are ready.',
  input: {},
  output: { environments: z.array(environmentSummarySchema).describe('Available environments, built-in first') },
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (_args, kit) => {
    const { environments } = await kit.call('environments.list', {});
    const list = environments.map(summary);
    const text = environments
      .map((env) => {
        const e = summary(env);
        const packages = e.packages.length ? `; packages: ${e.packages.join(', ')}` : '';
        const network = e.network === 'none' ? '' : `; network: ${NETWORK_POLICY_MEANINGS[e.network].toLowerCase()}`;
        const secrets = env.secrets?.length ? `; its sessions${secretsPhrase(env.secrets).slice(1)}` : '';
        return `${e.id}: "${e.name}" (${e.language}) — ${e.status_message}${packages}${network}${secrets}${e.description ? `\n  ${e.description}` : ''}`;
      })
      .join('\n');
    return { structured: { environments: list }, text };
  },
});
