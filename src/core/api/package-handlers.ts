import { SandpitError } from '../../shared/api/errors';
import type { Language } from '../../shared/domain/session';
import type { PackageOutcome } from '../../shared/domain/packages';
import type { DockerClient } from '../docker/docker-client';
import { checkNpmPackages, installNpmPackages } from '../environments/npm-installer';
import { checkPipPackages, installPipPackages } from '../environments/package-installer';
import type { InstallSettings, InstallTarget, InstallerDeps } from '../environments/package-installer';
import { parsePackageSpecs } from '../environments/package-names';
import type { PackageManager, PackageSpec } from '../environments/package-names';
import type { EgressAccess } from './environment-handlers';
import type { HandlerKit, Handlers } from './sandpit-api';

type PackageMethods = 'packages.install' | 'packages.check';

interface Installer {
  install(deps: InstallerDeps, target: InstallTarget, specs: PackageSpec[], settings: InstallSettings): Promise<PackageOutcome[]>;
  check(docker: DockerClient, containerId: string, specs: PackageSpec[]): Promise<Array<{ name: string; installed: boolean; version?: string }>>;
}

const INSTALLERS: Record<PackageManager, Installer> = {
  pip: { install: installPipPackages, check: checkPipPackages },
  npm: { install: installNpmPackages, check: checkNpmPackages },
};

/** The package manager of a session's language: npm for JavaScript; pip for Python and bash (bash runs on the python image). */
export function packageManagerFor(language: Language): PackageManager {
  return language === 'javascript' ? 'npm' : 'pip';
}

/** Runtime installs (helper container, session stays offline) and checks of what is importable. */
export function packageHandlers(kit: HandlerKit): Pick<Handlers, PackageMethods> {
  const { sessions, docker, config } = kit;
  return {
    'packages.install': async ({ sessionId, packages }, context) => {
      const id = await kit.target(sessionId, context);
      const info = sessions.get(id);
      const manager = packageManagerFor(info.language);
      const installer = INSTALLERS[manager];
      // Every name is validated before any process starts.
      const specs = parsePackageSpecs(packages, manager);
      const outcomes = await sessions.enqueue(id, async (runtime) => {
        const results = await installer.install(
          { docker, identity: runtime.options.identity, log: kit.sessions.logger },
          { sessionId: id, image: info.image, packagesVolume: runtime.packagesVolume },
          specs,
          {
            pipIndexUrl: config.pipIndexUrl,
            npmRegistryUrl: config.npmRegistryUrl,
            installNetwork: config.installNetwork,
            installTimeoutMs: config.installTimeoutMs,
            // With the egress proxy on, the installer reaches the indexes only through it — never around it.
            proxy: installerProxy(kit, id),
          },
        );
        const versions = await installer.check(docker, runtime.containerId, specs);
        return results.map((r, i) => (r.ok && versions[i]?.version ? { ...r, version: versions[i].version } : r));
      });
      sessions.recordPackages(id, outcomes.filter((o) => o.ok).map((o) => o.package));
      return { results: outcomes };
    },
    'packages.check': async ({ sessionId, packages }, context) => {
      const id = await kit.target(sessionId, context);
      const info = sessions.get(id);
      const manager = packageManagerFor(info.language);
      const specs = parsePackageSpecs(packages, manager);
      return { packages: await INSTALLERS[manager].check(docker, info.containerId, specs) };
    },
  };
}

/** The proxy an installer must use; refuses when the proxy is on but not running (no silent open network). */
function installerProxy(kit: HandlerKit, sessionId: string): ReturnType<EgressAccess['installerProxy']> | undefined {
  const egress = kit.environments.egress();
  if (egress) return egress.installerProxy(sessionId);
  if (kit.config.egressProxy) {
    throw new SandpitError(
      'DOCKER_UNAVAILABLE',
      'Packages cannot be installed: the egress proxy that limits installs to the package indexes is not running (it needs a local Docker engine on Linux). Set SANDPIT_EGRESS_PROXY=off to install over the install network without it.',
    );
  }
  return undefined;
}
