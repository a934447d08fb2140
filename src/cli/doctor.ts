import { engineChecks } from '../core/boot-checks';
import type { CheckResult } from '../core/check-result';
import { defaultConfig } from '../core/config';
import { createLogger } from '../core/log';
import { withStoredSettings } from '../core/settings/load-settings';
import { checkDataFolder, checkNode, checkPort, checkRunningSandpit, checkTokenFile, findDataFolderOwner, formatChecks } from './doctor-checks';

/** `sandpit doctor`: every prerequisite, each with how to fix it. Exit 1 when anything is wrong. */
export async function runDoctor(): Promise<number> {
  const log = createLogger({ app: 'sandpit' }, 'error');
  // The person's settings (their Docker address, their default isolation) over the defaults, as Sandpit would start.
  const { config, settings } = await withStoredSettings(defaultConfig(), log);
  const running = await findDataFolderOwner(config.home);
  const results: CheckResult[] = [
    checkNode(),
    await checkDataFolder(config.home),
    await checkTokenFile(config.home),
    checkRunningSandpit(config.home, running),
    await checkPort(config.port, undefined, running),
  ];
  results.push(...(await engineChecks(config, settings.current.defaultIsolation === 'strong', log)));
  process.stdout.write(`${formatChecks(results)}\n`);
  const failed = results.filter((r) => !r.ok).length;
  process.stdout.write(failed === 0 ? 'Everything Sandpit needs is in place.\n' : `${failed} problem(s) found.\n`);
  return failed === 0 ? 0 : 1;
}
