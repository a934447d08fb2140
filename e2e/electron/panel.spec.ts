/** The web specs' flows, in the desktop app (`_electron.launch({ args: ['.'] })`). */
import { runsAppearFilterAndExport } from '../flows/activity';
import { askApproveAndDeny } from '../flows/approvals';
import { plotAppearsInArtifacts } from '../flows/artifacts';
import { failedBuildNamesThePackage, presetsAndPlainEnvironment } from '../flows/environments';
import { outputShowsBeforeTheCallReturns } from '../flows/live-output';
import { everyScreen } from '../flows/screens';
import { ELECTRON_SKIP_REASON, electronAvailable } from '../support/electron-binary';
import { expect, test } from './fixtures';

test.skip(!electronAvailable, ELECTRON_SKIP_REASON);

test.describe('desktop app', () => {
  test('the HTTP surface refuses requests without the token', async ({ server }) => {
    const anonymous = await fetch(`${server.url}/api/sessions.list`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
  });

  test('environments: presets, a plain environment, a failed build naming the package', async ({ panel, assistants, server }, testInfo) => {
    await presetsAndPlainEnvironment({ panel, assistants, server }, testInfo);
    await failedBuildNamesThePackage({ panel, assistants, server }, testInfo);
  });

  test('live output before the MCP call returns', async ({ panel, assistants, server }, testInfo) => {
    await outputShowsBeforeTheCallReturns({ panel, assistants, server }, testInfo);
  });

  test('a matplotlib plot appears in Artifacts', async ({ panel, assistants, server }, testInfo) => {
    await plotAppearsInArtifacts({ panel, assistants, server }, testInfo);
  });

  test('Activity: filter, search, detail, chain status', async ({ panel, assistants, server }, testInfo) => {
    await runsAppearFilterAndExport({ panel, assistants, server }, testInfo, { downloads: false });
  });

  test('approvals: approve and deny', async ({ panel, assistants, server }, testInfo) => {
    await askApproveAndDeny({ panel, assistants, server }, testInfo);
  });

  test('every screen', async ({ panel, assistants, server }, testInfo) => {
    await everyScreen({ panel, assistants, server }, testInfo);
  });
});
