/**
 * Issue 21, "What is said must be true" #2: the person stops a session while an assistant's run streams. The
 * panel said "Could not run after 5.4 s (CONTAINER_DIED)" and the assistant was told the sandbox "was
 * restarted … the files in /workspace were kept", though the session and its files were gone.
 */
import type { ExecutionOutput } from '../support/mcp';
import { textOf } from '../support/mcp';
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

test('stopping a session during a run: "Stopped by you" in the panel; the assistant is told the session no longer exists', async ({ panel, assistants }, testInfo) => {
  const assistant = await assistants.connect(uniqueName('stopper'));
  const { session_id: sessionId } = await assistant.run('print("ready")');
  const sessions = await panel.sessions();
  const session = await sessions.open(sessionId);

  const call = assistant.execute('import time\nfor i in range(10):\n    print(f"line {i}", flush=True)\ntime.sleep(100)', { timeoutSeconds: 110 });
  await expect(session.stdoutWith('line 9')).toBeVisible();
  await session.root.getByTestId('session-stop').click();
  await panel.page.getByTestId('confirm-stop').getByTestId('confirm-stop-confirm').click();

  const result = await call;
  const text = textOf(result);
  expect(result.isError ?? false, text).toBe(false);
  const out = result.structuredContent as unknown as ExecutionOutput & { message?: string; state_lost?: boolean };
  expect(out.status).toBe('killed');
  expect(out.stdout).toContain('line 9');
  expect(out.state_lost).toBe(true);
  expect(out.message).toBe(
    'The person stopped this session during the run; it no longer exists: its variables and the files in /workspace are gone. Start a new session to go on.',
  );
  expect(text).not.toContain('restarted');
  expect(text).not.toContain('were kept');

  // The page of the ended session keeps its live output, and says who stopped the run.
  const gone = panel.page.locator(`[data-testid="session-page"][data-session-id="${sessionId}"]`);
  await expect(gone.getByTestId('session-gone')).toBeVisible();
  const done = gone.getByTestId('console-done').last();
  await expect(done).toHaveAttribute('data-status', 'killed');
  await expect(done).toHaveText(/^Stopped by you after \d+(\.\d)? (s|ms)$/);
  await expect(gone.getByTestId('session-console')).not.toContainText('CONTAINER_DIED');
  await expect(gone.getByTestId('session-console')).not.toContainText('Could not run');
  await saveScreenshot(panel.page, testInfo, 'stopped-by-you');

  // The next call on that session is told plainly that it is gone.
  const after = await assistant.execute('print(1)', { sessionId });
  expect(after.isError).toBe(true);
  expect(textOf(after)).toContain('SESSION_NOT_FOUND');
});
