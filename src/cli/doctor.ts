import { defaultConfig } from '../core/config';
import { openEngine } from '../core/docker/open-engine';
import { createLogger } from '../core/log';
import { checkDataFolder, checkDocker, checkImages, checkNode, checkPort, checkTokenFile, formatChecks } from './doctor-checks';
import type { CheckResult } from './doctor-checks';

/** `sandpit doctor`: every prerequisite, each with how to fix it. Exit 1 when anything is wrong. */
export async function runDoctor(): Promise<number> {
  const config = defaultConfig();
  const { docker } = await openEngine(config.dockerHost, createLogger({ app: 'sandpit' }, 'error'));
  const results: CheckResult[] = [checkNode(), await checkDataFolder(config.home), await checkTokenFile(config.home), await checkPort(config.port)];
  const engine = await checkDocker(docker);
  results.push(engine);
  if (engine.ok) results.push(await checkImages(docker));
  process.stdout.write(`${formatChecks(results)}\n`);
  const failed = results.filter((r) => !r.ok).length;
  process.stdout.write(failed === 0 ? 'Everything Sandpit needs is in place.\n' : `${failed} problem(s) found.\n`);
  return failed === 0 ? 0 : 1;
}
