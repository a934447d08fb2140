import { SandpitError } from '../../shared/api/errors';
import type { Language } from '../../shared/domain/session';

export interface RestEnvironment {
  name: string;
  language: Language;
  image: string;
}

/**
 * The environments REST offers. Until the environments feature lands: one per language that has a
 * configured executor image, named after the language. Swap this function when environments arrive.
 */
export function listRestEnvironments(images: Partial<Record<Language, string>>): RestEnvironment[] {
  return (Object.entries(images) as Array<[Language, string | undefined]>)
    .filter((entry): entry is [Language, string] => typeof entry[1] === 'string' && entry[1].length > 0)
    .map(([language, image]) => ({ name: language, language, image }));
}

/** Environment names `POST /execute` accepts in `env` for now. */
const ACCEPTED_ENVS = new Set(['python', 'default']);

/** The one place that decides what `env` of POST /execute may name. Throws INVALID_INPUT otherwise. */
export function checkRestEnv(env: string | undefined): void {
  if (env !== undefined && !ACCEPTED_ENVS.has(env)) {
    throw new SandpitError(
      'INVALID_INPUT',
      `Unknown environment "${env}": environments arrive with the environments feature (use "python" or leave env out).`,
    );
  }
}
