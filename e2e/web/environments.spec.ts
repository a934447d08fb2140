import { failedBuildNamesThePackage, presetsAndPlainEnvironment } from '../flows/environments';
import { test } from './fixtures';

test.describe('environments', () => {
  test('presets are listed and an environment without packages is ready to use', async ({ panel, assistants, server }, testInfo) => {
    await presetsAndPlainEnvironment({ panel, assistants, server }, testInfo);
  });

  test('building a package that cannot exist shows the live log and names the package', async ({ panel, assistants, server }, testInfo) => {
    await failedBuildNamesThePackage({ panel, assistants, server }, testInfo);
  });
});
