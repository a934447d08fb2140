import type { Language, PackageManager } from '../../shared/domain/languages';
import { packageManagerOf } from '../../shared/domain/languages';
import { SandpitError } from '../../shared/api/errors';
import { PACKAGE_MANAGERS } from '../../shared/domain/package-managers';
import type { Installer } from './helper-install';
import { npmInstaller } from './npm';
import { pipInstaller } from './pip';

/** The installer of each package manager in the registry. */
export const INSTALLERS: Partial<Record<PackageManager, Installer>> = {
  pip: pipInstaller,
  npm: npmInstaller,
};

/** The installer a session of this language uses (the registry says which manager); a manager without one installs only in image builds. */
export function installerFor(language: Language): Installer {
  const manager = packageManagerOf(language);
  const installer = INSTALLERS[manager];
  if (!installer) throw new SandpitError('INVALID_INPUT', `${PACKAGE_MANAGERS[manager].label} cannot be installed into a running session: add them to an environment instead.`);
  return installer;
}
