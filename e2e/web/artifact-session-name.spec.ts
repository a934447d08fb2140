/** An artifact says whose it is — the session's name — on its card, and still after that session has ended. */
import { expect } from '@playwright/test';
import { uniqueName } from '../support/panel-api';
import { test } from './fixtures';

test("an artifact's card names its session, and keeps the name once the session has ended", async ({ panel, assistants }) => {
  const assistant = await assistants.connect(uniqueName('e2e-artifact-owner'));
  const file = `${uniqueName('notes')}.txt`;
  const output = await assistant.run(`open("/workspace/${file}", "w").write("kept after the session")\nprint("wrote")`, { timeoutSeconds: 90 });
  expect(output.status, output.stderr).toBe('ok');
  const listed = await assistant.client.callTool({ name: 'list_sessions', arguments: {} });
  const sessions = (listed.structuredContent as { sessions: Array<{ session_id: string; name: string }> }).sessions;
  const name = sessions.find((s) => s.session_id === output.session_id)?.name;
  expect(name, 'list_sessions names the run’s session').toBeTruthy();

  const artifacts = await panel.artifacts();
  const card = await artifacts.card(file);
  await expect(card.getByTestId('artifact-session')).toHaveText(name!);

  const stopped = await assistant.client.callTool({ name: 'stop_session', arguments: { session_id: output.session_id } });
  expect(stopped.isError ?? false).toBe(false);
  await panel.page.reload();
  const again = await (await panel.artifacts()).card(file);
  // The name recorded when the file was made, not "Ended session".
  await expect(again.getByTestId('artifact-session')).toHaveText(name!);
  const detail = await (await panel.artifacts()).open(again);
  await expect(detail).toBeVisible();
  await expect(panel.page.getByTestId('artifact-detail')).toContainText(name!);
});
