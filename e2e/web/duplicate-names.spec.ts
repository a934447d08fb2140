/**
 * Issue 21, "What is said must be true" #6: two environments with the same name (ignoring case) were accepted,
 * and an assistant then got "More than one environment is called …" with ids the person could not see. The
 * Name field refuses a name already in use at once, and so does Sandpit itself.
 */
import { callApi, uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('a name already used by another environment (capitals aside) is refused at the Name field and by Sandpit', async ({ panel, server }, testInfo) => {
  const name = uniqueName('Team data');
  await callApi(server, 'environments.create', { name, language: 'python' });
  const environments = await panel.environments();
  await panel.page.getByTestId('env-new').click();
  const form = environments.form;
  await form.getByTestId('env-name').fill(`  ${name.toUpperCase()} `);
  const refusal = `An environment is already called “${name}” (capitals and spaces do not tell names apart). Choose another name.`;
  await expect(form.getByTestId('env-name-error')).toHaveText(refusal);
  await expect(form.getByTestId('env-name')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByTestId('env-save')).toBeDisabled();
  await expect(form.getByTestId('env-save-build')).toBeDisabled();
  await saveScreenshot(panel.page, testInfo, 'duplicate-name');

  // A built-in environment's name is taken too.
  await form.getByTestId('env-name').fill('python');
  await expect(form.getByTestId('env-name-error')).toContainText('An environment is already called “Python”');

  // A free name is fine.
  await form.getByTestId('env-name').fill(`${name} 2`);
  await expect(form.getByTestId('env-name-error')).toHaveCount(0);
  await form.getByTestId('env-cancel').click();

  // Sandpit refuses it too (a second panel, an import, a rename), saying the same.
  await expect(callApi(server, 'environments.create', { name: name.toLowerCase(), language: 'python' })).rejects.toThrow(`CONFLICT ${refusal}`);
  const list = (await callApi(server, 'environments.list')) as { environments: Array<{ name: string }> };
  expect(list.environments.filter((e) => e.name.toLowerCase() === name.toLowerCase())).toHaveLength(1);
});
