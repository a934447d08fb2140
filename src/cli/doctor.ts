import { defaultConfig } from '../core/config';
import { openEngine } from '../core/docker/open-engine';
import { createLogger } from '../core/log';
import { withStoredSettings } from '../core/settings/load-settings';
import { checkDataFolder, checkDocker, checkGvisor, checkImages, checkNode, checkPort, checkTokenFile, formatChecks } from './doctor-checks';
import type { CheckResult } from './doctor-checks';

/** `sandpit doctor`: every prerequisite, each with how to fix it. Exit 1 when anything is wrong. */
export async function runDoctor(): Promise<number> {
  const log = createLogger({ app: 'sandpit' }, 'error');
  // The person's settings (their Docker address, their default isolation) over the defaults, as Sandpit would start.
  const { config, settings } = await withStoredSettings(defaultConfig(), log);
  const { docker, engine: found } = await openEngine(config.dockerHost, log);
  const results: CheckResult[] = [checkNode(), await checkDataFolder(config.home), await checkTokenFile(config.home), await checkPort(config.port)];
  const { version, ...engine } = await checkDocker(docker, found.source);
  results.push(engine);
  if (version) {
    results.push(checkGvisor(version, settings.current.defaultIsolation === 'strong'));
    results.push(await checkImages(docker));
  }
  process.stdout.write(`${formatChecks(results)}\n`);
  const failed = results.filter((r) => !r.ok).length;
  process.stdout.write(failed === 0 ? 'Everything Sandpit needs is in place.\n' : `${failed} problem(s) found.\n`);
  return failed === 0 ? 0 : 1;
}
