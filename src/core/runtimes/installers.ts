import type { Language, PackageManager } from '../../shared/domain/runtimes';
import { packageManagerOf } from '../../shared/domain/runtimes';
import type { Installer } from './helper-install';
import { npmInstaller } from './npm';
import { pipInstaller } from './pip';

/** The installer of each package manager in the registry. */
export const INSTALLERS: Record<PackageManager, Installer> = {
  pip: pipInstaller,
  npm: npmInstaller,
};

/** The installer a session of this language uses (the registry says which manager). */
export function installerFor(language: Language): Installer {
  return INSTALLERS[packageManagerOf(language)];
}
