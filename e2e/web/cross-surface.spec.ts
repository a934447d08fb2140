import { dataPresetPlotsAsImageContent, panelEnvironmentUsedByAnAssistant } from '../flows/cross-surface';
import { test } from './fixtures';

test.describe('what the panel makes, an assistant uses', () => {
  test('an environment made in the panel is listed, built and used over MCP and REST, and its run shows in the panel', async ({ panel, assistants, server }, testInfo) => {
    await panelEnvironmentUsedByAnAssistant({ panel, assistants, server }, testInfo);
  });

  test('the Python (data) preset makes a plot that comes back as MCP image content', async ({ panel, assistants, server }) => {
    await dataPresetPlotsAsImageContent({ panel, assistants, server });
  });
});
