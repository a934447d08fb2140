import { outputShowsBeforeTheCallReturns } from '../flows/live-output';
import { test } from './fixtures';

test('an MCP client runs code and the session page shows its output live, before the call returns', async ({ panel, assistants, server }, testInfo) => {
  await outputShowsBeforeTheCallReturns({ panel, assistants, server }, testInfo);
});
