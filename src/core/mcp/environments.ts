import { SandpitError } from '../../shared/api/errors';
import type { Language } from '../../shared/domain/session';
import { listRestEnvironments } from '../http/rest-environments';
import type { RestEnvironment } from '../http/rest-environments';

/**
 * Environments as the MCP tools see them, until the environments feature lands: one per language with a
 * configured executor image (the same list REST's /list-envs gives), plus the name "default" for Python.
 * Swap these two functions when environments arrive.
 */
export function listEnvironments(images: Partial<Record<Language, string>>): RestEnvironment[] {
  return listRestEnvironments(images);
}

const ACCEPTED = new Set(['python', 'default']);

/** The language a create_session with `environment` (and maybe `language`) gets; INVALID_INPUT for anything else. */
export function resolveEnvironment(environment: string | undefined, language: Language | undefined): Language {
  if (environment === undefined) return language ?? 'python';
  if (!ACCEPTED.has(environment)) {
    throw new SandpitError(
      'INVALID_INPUT',
      `Unknown environment "${environment}". For now only "python" (also called "default") exists; leave environment out, or see list_environments.`,
    );
  }
  if (language !== undefined && language !== 'python') {
    throw new SandpitError(
      'INVALID_INPUT',
      `The "${environment}" environment is Python, not ${language}: leave environment out to get a ${language} session.`,
    );
  }
  return 'python';
}
