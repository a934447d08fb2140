/**
 * Issue 21, "What is said must be true" #7: an assistant's failed run showed only "Failed" in Live output (no
 * error, no traceback), while a panel run showed its error; the value of a run's last line — what the
 * assistant received — showed nowhere in the panel. Now Live output and Activity show both, for every run.
 */
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test("an assistant's run shows its value and its error with the traceback in Live output and Activity, like a panel run", async ({ panel, assistants }, testInfo) => {
  const assistant = await assistants.connect(uniqueName('shower'));
  const { session_id: sessionId } = await assistant.run('print("ready")');
  const sessions = await panel.sessions();
  const session = await sessions.open(sessionId);

  const marker = uniqueName('value');
  const valued = await assistant.run(`answer = "${marker}"\nanswer`);
  expect(valued.result).toBe(`'${marker}'`);
  await expect(session.console.getByTestId('console-result').filter({ hasText: marker })).toHaveText(`'${marker}'`);

  const failed = await assistant.run('def broken():\n    return 1 / 0\nbroken()');
  expect(failed.status).toBe('error');
  const error = session.console.getByTestId('console-error').last();
  await expect(error).toContainText('Traceback');
  await expect(error).toContainText('ZeroDivisionError: division by zero');
  await expect(error).toContainText('broken()');
  await expect(session.done.last()).toHaveAttribute('data-status', 'error');
  await expect(session.done.last()).toHaveText('Failed');
  await saveScreenshot(panel.page, testInfo, 'assistant-run-ends');

  // A panel run shows the same parts, once each.
  await session.runHere('1/0');
  await expect(session.console.getByTestId('console-error')).toHaveCount(2);
  await session.runHere('6 * 7');
  await expect(session.console.getByTestId('console-result').last()).toHaveText('42');
  await expect(session.console.getByTestId('console-result')).toHaveCount(2);

  // Activity: the value the assistant received, in the run's detail.
  const activity = await panel.activity();
  const detail = await activity.openRow(activity.rowsWith(marker).first());
  await expect(detail.getByTestId('activity-detail-result')).toHaveText(`'${marker}'`);
  await expect(detail).toContainText(`What ${assistant.name} received as the run’s result.`);
});
