import { SandpitError } from '../../shared/api/errors';
import { LANGUAGES, languageLabel, withArticle } from '../../shared/domain/languages';
import type { Language } from '../../shared/domain/languages';
import type { SandboxSpec } from '../sandbox/sandbox-backend';

/**
 * An agent that answers hello as another language than the session asked for (an image of another flavour, a
 * bash session on an image whose agent has no bash mode) is refused at the start, saying so, before any code
 * reaches it.
 */
export function wrongLanguage(answered: string, spec: Pick<SandboxSpec, 'image' | 'language'>): SandpitError | undefined {
  if (answered === spec.language) return undefined;
  const known = (LANGUAGES as readonly string[]).includes(answered) ? languageLabel(answered as Language) : answered;
  const asked = languageLabel(spec.language);
  return new SandpitError(
    'INVALID_INPUT',
    `The sandbox image ${spec.image} runs ${known}, not ${asked}: ${withArticle(asked)} session needs an image made for ${asked}. Choose an environment (or base) of that language.`,
    { image: spec.image, language: spec.language, agentLanguage: answered },
  );
}
