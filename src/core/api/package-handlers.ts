import { SandpitError } from '../../shared/api/errors';
import { parsePackageSpecs } from '../environments/package-names';
import { checkPipPackages, installPipPackages } from '../environments/package-installer';
import type { HandlerKit, Handlers } from './sandpit-api';

type PackageMethods = 'packages.install' | 'packages.check';

/** Runtime installs (helper container, session stays offline) and checks of what is importable. */
export function packageHandlers(kit: HandlerKit): Pick<Handlers, PackageMethods> {
  const { sessions, docker, config } = kit;
  const pipOnly = (language: string): void => {
    if (language !== 'python') throw new SandpitError('INVALID_INPUT', `Installing packages into ${language} sessions is not supported yet; Python sessions use pip.`);
  };
  return {
    'packages.install': async ({ sessionId, packages }, context) => {
      const id = await kit.target(sessionId, context);
      const info = sessions.get(id);
      pipOnly(info.language);
      // Every name is validated before any process starts.
      const specs = parsePackageSpecs(packages, 'pip');
      const outcomes = await sessions.enqueue(id, async (runtime) => {
        const results = await installPipPackages(
          { docker, identity: runtime.options.identity, log: kit.sessions.logger },
          { sessionId: id, image: info.image, packagesVolume: runtime.packagesVolume },
          specs,
          {
            pipIndexUrl: config.pipIndexUrl,
            npmRegistryUrl: config.npmRegistryUrl,
            installNetwork: config.installNetwork,
            installTimeoutMs: config.installTimeoutMs,
            // With the egress proxy running, the installer reaches the indexes only through it.
            proxy: kit.environments.egress()?.installerProxy(id),
          },
        );
        const versions = await checkPipPackages(docker, runtime.containerId, specs);
        return results.map((r, i) => (r.ok && versions[i]?.version ? { ...r, version: versions[i].version } : r));
      });
      sessions.recordPackages(id, outcomes.filter((o) => o.ok).map((o) => o.package));
      return { results: outcomes };
    },
    'packages.check': async ({ sessionId, packages }, context) => {
      const id = await kit.target(sessionId, context);
      const info = sessions.get(id);
      pipOnly(info.language);
      const specs = parsePackageSpecs(packages, 'pip');
      return { packages: await checkPipPackages(docker, info.containerId, specs) };
    },
  };
}
