import type { CheckResult } from './check-result';
import type { SandpitConfig } from './config';
import { checkDocker, checkGvisor, checkImages } from './docker/engine-checks';
import { openEngine } from './docker/open-engine';
import type { Logger } from './log';

/**
 * `sandpit doctor`'s checks of the engine, found as Sandpit would find it: whether it answers (and where it was
 * found), gVisor (a problem only when Strong isolation is the default), and the built sandbox images.
 */
export async function engineChecks(config: Pick<SandpitConfig, 'dockerHost'>, strongByDefault: boolean, log: Logger): Promise<CheckResult[]> {
  const { docker, engine: found } = await openEngine(config.dockerHost, log);
  const { version, ...engine } = await checkDocker(docker, found.source);
  if (!version) return [engine];
  return [engine, checkGvisor(version, strongByDefault), await checkImages(docker)];
}
