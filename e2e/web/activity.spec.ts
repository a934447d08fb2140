import { runsAppearFilterAndExport } from '../flows/activity';
import { test } from './fixtures';

test('runs appear in Activity; filter by client, search, detail, CSV export and chain status work', async ({ panel, assistants, server }, testInfo) => {
  await runsAppearFilterAndExport({ panel, assistants, server }, testInfo, { downloads: true });
});
