import { plotAppearsInArtifacts } from '../flows/artifacts';
import { test } from './fixtures';

test('a matplotlib plot made over MCP appears in Artifacts with a picture preview', async ({ panel, assistants, server }, testInfo) => {
  await plotAppearsInArtifacts({ panel, assistants, server }, testInfo);
});
