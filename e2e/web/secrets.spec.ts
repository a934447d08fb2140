/**
 * Issue 18: Settings → Secrets. A person adds a secret for an environment; the value is never shown again
 * (not in the page, not in what the panel is sent back); changing it without a value keeps it; delete removes it.
 */
import { callApi } from '../support/panel-api';
import { expect, test } from './fixtures';

const VALUE = 'sk-e2e-4f3e2d1c-never-shown-again';

test('adds a secret for an environment, never shows its value again, changes it keeping the value, deletes it', async ({ panel, server }) => {
  const page = panel.page;
  const sent: string[] = [];
  page.on('response', (response) => {
    if (response.url().includes('/api')) void response.text().then((t) => sent.push(t), () => undefined);
  });
  await panel.settings();
  const section = page.getByTestId('settings-secrets');
  await expect(section).toContainText('Keys your assistant\'s code can use but never read.');
  await expect(page.getByTestId('secrets-protection')).toHaveText("Values are locked with a key file in Sandpit's data folder (secrets.key, readable by your user only).");
  await expect(page.getByTestId('secrets-list')).toHaveText('No secrets yet.');

  await page.getByTestId('secret-name').fill('openai');
  await page.getByTestId('secret-value').fill(VALUE);
  await page.getByTestId('secret-hosts').fill('api.openai.com');
  await page.getByTestId('secret-env-python').check();
  await page.getByTestId('secret-save').click();
  const row = page.getByTestId('secret-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('openai — sent to api.openai.com; in the sandbox OPENAI_API_KEY=sandpit-secret-openai; used by');
  await expect(page.getByTestId('secret-value')).toHaveValue('');

  // A host this computer owns is refused, with the reason, next to the form.
  await page.getByTestId('secret-name').fill('local');
  await page.getByTestId('secret-value').fill('x');
  await page.getByTestId('secret-hosts').fill('localhost');
  await page.getByTestId('secret-save').click();
  await expect(page.getByTestId('secret-problem')).toContainText('"localhost" is this computer');
  await page.getByTestId('secret-name').fill('');

  // Change: the value field starts empty; saving without one keeps the value (the hosts change).
  await row.getByTestId('secret-replace').click();
  await expect(page.getByTestId('secret-value')).toHaveValue('');
  await expect(page.getByTestId('secret-name')).toHaveValue('openai');
  await page.getByTestId('secret-hosts').fill('api.openai.com, *.openai.azure.com');
  await page.getByTestId('secret-save').click();
  await expect(row).toContainText('sent to api.openai.com, *.openai.azure.com');

  // What an assistant sees of the environment: names and hosts.
  const env = (await callApi(server, 'environments.get', { environmentId: 'python' })) as { secrets?: unknown };
  expect(env.secrets).toEqual([{ name: 'openai', hosts: ['api.openai.com', '*.openai.azure.com'], envVar: 'OPENAI_API_KEY' }]);

  expect(await page.content()).not.toContain(VALUE);
  expect(sent.join('\n')).not.toContain(VALUE);

  await row.getByTestId('secret-delete').click();
  await expect(page.getByTestId('secrets-list')).toHaveText('No secrets yet.');
});
