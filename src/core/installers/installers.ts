import type { Language } from '../../shared/domain/languages';
import { packageManagerOf } from '../../shared/domain/languages';
import { SandpitError } from '../../shared/api/errors';
import { PACKAGE_MANAGERS } from '../../shared/domain/package-managers';
import type { IndexSetting, ManagerId } from '../../shared/domain/package-managers';
import { aptDockerfile } from './apt';
import { cranDockerfile, cranInstaller, debianName } from './cran';
import type { Installer } from './helper-install';
import { npmDockerfile, npmInstaller } from './npm';
import { pipDockerfile, pipInstaller } from './pip';

/**
 * The core's side of each entry of the package-manager registry (shared/domain/package-managers.ts): what runs
 * programs, where the registry is pure data.
 */
export interface ManagerTools {
  /** Its installer in a running session's helper; none: its packages go into environments' images only. */
  installer?: Installer;
  /** Its lines of an environment's Dockerfile for these validated, normalised specs (exec-form RUN, ENV). */
  dockerfile(specs: readonly string[], indexUrls: Readonly<Record<IndexSetting, string>>): string[];
  /** Whether a build's step (the log's `Step n/m : RUN …` line) is one of its own: a failed build is explained in its words. */
  ownsStep(step: string): boolean;
  /**
   * The manager whose installer its image builds run, when that is another one, and the name a package has
   * there: a failed build is then explained in that installer's words, about those names.
   */
  buildsThrough?: { manager: ManagerId; name(spec: string): string };
}

export const MANAGER_TOOLS: { readonly [M in ManagerId]: ManagerTools } = {
  pip: { installer: pipInstaller, dockerfile: (specs, urls) => pipDockerfile(specs, urls.pipIndexUrl), ownsStep: (step) => /"pip"/.test(step) },
  npm: { installer: npmInstaller, dockerfile: (specs, urls) => npmDockerfile(specs, urls.npmRegistryUrl), ownsStep: (step) => /"npm"/.test(step) },
  apt: { dockerfile: (names) => aptDockerfile(names), ownsStep: (step) => /apt-get/.test(step) },
  // An R environment's image gets Debian's r-cran-* builds through apt; a running session, install.packages().
  cran: {
    installer: cranInstaller,
    dockerfile: (names) => cranDockerfile(names),
    ownsStep: (step) => /"r-cran-/.test(step),
    buildsThrough: { manager: 'apt', name: debianName },
  },
};

/** The installer a session of this language uses (the registry says which manager); a manager without one installs only in image builds. */
export function installerFor(language: Language): Installer {
  const manager = packageManagerOf(language);
  const installer = MANAGER_TOOLS[manager].installer;
  if (!installer) throw new SandpitError('INVALID_INPUT', `${PACKAGE_MANAGERS[manager].label} cannot be installed into a running session: add them to an environment instead.`);
  return installer;
}
