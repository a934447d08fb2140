/** An assistant's run streams into the session page while its execute_code call is still waiting. */
import { expect } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import type { FlowContext } from './context';

export async function outputShowsBeforeTheCallReturns({ panel, assistants }: FlowContext, testInfo: TestInfo): Promise<void> {
  const assistant = await assistants.connect(uniqueName('e2e-live'));
  const first = await assistant.run('print("warming up")');
  expect(first.status).toBe('ok');

  const sessions = await panel.sessions();
  await expect(sessions.row(first.session_id)).toContainText(assistant.name);
  const session = await sessions.open(first.session_id);

  const marker = uniqueName('live');
  const code = [
    'import time',
    `print("${marker} line 1", flush=True)`,
    'time.sleep(6)',
    `print("${marker} line 2", flush=True)`,
    'time.sleep(6)',
    `print("${marker} line 3", flush=True)`,
  ].join('\n');
  let returned = false;
  const call = assistant.run(code).finally(() => {
    returned = true;
  });

  await expect(session.stdoutWith(`${marker} line 1`)).toBeVisible({ timeout: 10_000 });
  expect(returned, 'the first line is on the page while execute_code has not returned yet').toBe(false);
  await expect(session.stdoutWith(`${marker} line 2`)).toBeVisible({ timeout: 10_000 });
  expect(returned, 'the second line too').toBe(false);

  const output = await call;
  expect(output.status).toBe('ok');
  expect(output.session_id).toBe(first.session_id);
  expect(output.stdout).toContain(`${marker} line 3`);
  await expect(session.stdoutWith(`${marker} line 3`)).toBeVisible();
  await expect(session.done.last()).toHaveAttribute('data-status', 'ok');
  await saveScreenshot(panel.page, testInfo, 'session-page');
}
