import { DEFAULT_LANGUAGE, packageManagerOf } from '../../shared/domain/languages';
import type { Language } from '../../shared/domain/languages';
import { parsePackageSpecs } from '../installers/package-specs';
import type { CallContext, Handlers } from './api-types';
import type { HandlerKit } from './handler-kit';

type PackageMethods = 'packages.install' | 'packages.check';

/**
 * The language whose installer a call uses: the named session's, else the default session's (python).
 * Known before any session is made, so a bad name is refused without starting anything.
 */
function languageFor(kit: HandlerKit, sessionId: string | undefined, context: CallContext): Language {
  return sessionId === undefined ? DEFAULT_LANGUAGE : kit.sessions.access(sessionId, context.principal).identity.language;
}

/** Runtime installs (a helper fetches; the session stays offline) and checks of what is importable. */
export function packageHandlers(kit: HandlerKit): Pick<Handlers, PackageMethods> {
  return {
    'packages.install': async ({ sessionId, packages }, context) => {
      // Every name is validated before any process (or session) starts.
      const specs = parsePackageSpecs(packages, packageManagerOf(languageFor(kit, sessionId, context)));
      const session = await kit.target(sessionId, context);
      return { results: await session.installPackages(specs) };
    },
    'packages.check': async ({ sessionId, packages }, context) => {
      const specs = parsePackageSpecs(packages, packageManagerOf(languageFor(kit, sessionId, context)));
      return { packages: await (await kit.target(sessionId, context)).checkPackages(specs) };
    },
  };
}
