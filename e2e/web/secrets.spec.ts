/**
 * Issue 18: Settings → Secrets. A person adds a secret for an environment; the value is never shown again
 * (not in the page, not in what the panel is sent back); changing it without a value keeps it; delete removes it.
 */
import { PanelPage } from '../pages/panel-page';
import { callApi, uniqueName } from '../support/panel-api';
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
  await expect(row).toContainText('openai — sent to api.openai.com in the header Authorization; in the sandbox OPENAI_API_KEY=sandpit-secret-openai; used by');
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

test('a secret sent as basic auth: the row says so, and changing it keeps user name and value', async ({ panel }) => {
  const page = panel.page;
  await panel.settings();
  await page.getByTestId('secret-name').fill('index');
  await page.getByTestId('secret-value').fill(VALUE);
  await page.getByTestId('secret-hosts').fill('pypi.example.org');
  await page.getByTestId('secret-send-as').selectOption('basic');
  await expect(page.getByTestId('secret-header')).toBeHidden();
  await page.getByTestId('secret-username').fill('token');
  await page.getByTestId('secret-save').click();
  const row = page.getByTestId('secret-row').filter({ hasText: 'index' });
  await expect(row).toContainText('index — sent to pypi.example.org as the password of user token (basic auth); in the sandbox INDEX_API_KEY=sandpit-secret-index');
  await row.getByTestId('secret-replace').click();
  await expect(page.getByTestId('secret-send-as')).toHaveValue('basic');
  await expect(page.getByTestId('secret-username')).toHaveValue('token');
  await page.getByTestId('secret-hosts').fill('pypi.example.org, files.example.org');
  await page.getByTestId('secret-save').click();
  await expect(row).toContainText('sent to pypi.example.org, files.example.org as the password of user token (basic auth)');
  expect(await page.content()).not.toContain(VALUE);
  await row.getByTestId('secret-delete').click();
  await expect(row).toHaveCount(0);
});

test('two open panels: a secret saved or deleted in one shows in the other at once, without reloading', async ({ panel, server }) => {
  const first = panel.page;
  const second = new PanelPage(await first.context().newPage());
  await second.openWithToken(server.url, server.panelToken);
  await panel.settings();
  await second.settings();
  const name = `both-${Date.now().toString(36)}`;
  await first.getByTestId('secret-name').fill(name);
  await first.getByTestId('secret-value').fill(VALUE);
  await first.getByTestId('secret-hosts').fill('api.example.org');
  await first.getByTestId('secret-save').click();
  // The other window learns of it from the secrets.changed event (names only), and lists it.
  const there = second.page.getByTestId('secret-row').filter({ hasText: name });
  await expect(there).toContainText(`${name} — sent to api.example.org in the header Authorization`);
  await there.getByTestId('secret-delete').click();
  await expect(first.getByTestId('secret-row').filter({ hasText: name })).toHaveCount(0);
  expect(await second.page.content()).not.toContain(VALUE);
  await second.page.close();
});

test("an environment's form attaches a secret to it and detaches it; its card and Settings → Secrets say so", async ({ panel, server }) => {
  const page = panel.page;
  const name = `attach-${Date.now().toString(36)}`;
  const envName = uniqueName('With a secret');
  await callApi(server, 'secrets.save', { name, value: VALUE, hosts: ['api.example.net'] });
  const env = (await callApi(server, 'environments.create', { name: envName, language: 'python', network: 'packages' })) as { id: string };
  try {
    const environments = await panel.environments();
    const row = environments.row(envName);
    await expect(row.getByTestId('env-secrets-used')).toHaveCount(0);
    await row.getByTestId('env-edit').click();
    const form = environments.form;
    await expect(form.getByTestId('env-secrets')).toContainText('Secrets its sessions may use');
    await form.getByTestId(`env-secret-${name}`).check();
    await form.getByTestId('env-save').click();
    await expect(form).toBeHidden();
    await expect(row.getByTestId('env-secrets-used')).toHaveText(`Secrets its sessions may use: ${name} (sent to api.example.net)`);
    // What an assistant sees of it: the name, host and variable.
    const view = (await callApi(server, 'environments.get', { environmentId: env.id })) as { secrets?: unknown };
    expect(view.secrets).toEqual([{ name, hosts: ['api.example.net'], envVar: `${name.toUpperCase().replace(/-/g, '_')}_API_KEY` }]);
    await panel.settings();
    await expect(page.getByTestId('secret-row').filter({ hasText: name })).toContainText(`used by ${envName}`);

    // Detached again from the form: the card no longer names it, and the value was never sent anywhere.
    await panel.environments();
    await row.getByTestId('env-edit').click();
    await expect(form.getByTestId(`env-secret-${name}`)).toBeChecked();
    await form.getByTestId(`env-secret-${name}`).uncheck();
    await form.getByTestId('env-save').click();
    await expect(form).toBeHidden();
    await expect(row.getByTestId('env-secrets-used')).toHaveCount(0);
    expect(((await callApi(server, 'environments.get', { environmentId: env.id })) as { secrets?: unknown }).secrets).toBeUndefined();
    expect(await page.content()).not.toContain(VALUE);
  } finally {
    await callApi(server, 'secrets.delete', { name });
    await callApi(server, 'environments.remove', { environmentId: env.id });
  }
});
