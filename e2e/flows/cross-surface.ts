/**
 * What a person makes in the panel, an assistant uses: an environment created on the Environments screen is
 * listed by list_environments, started by its name with create_session (built first, with progress), its
 * packages import, and the run streams into the panel under the environment's name. The same environment
 * through REST `POST /execute {env}`; the "Python (data)" preset draws a plot that comes back as MCP image content.
 */
import { expect } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { textOf } from '../support/mcp';
import { uniqueName } from '../support/panel-api';
import { saveScreenshot } from '../support/screenshots';
import type { FlowContext } from './context';

const CALL_TIMEOUT_MS = 240_000;

interface ListedEnvironment {
  id: string;
  name: string;
  language: string;
  packages: string[];
  status: string;
}

interface SessionSummary {
  session_id: string;
  name: string;
  environment: string;
  environment_name: string;
}

export async function panelEnvironmentUsedByAnAssistant({ panel, assistants, server }: FlowContext, testInfo: TestInfo): Promise<void> {
  // The person makes an environment with a package, and does not build it.
  const envs = await panel.environments();
  const name = uniqueName('Team data');
  await envs.create(name, ['sandpit_demo_b']);

  // The assistant sees it, by the name the person gave it.
  const assistant = await assistants.connect(uniqueName('e2e-cross'));
  const listed = (await assistant.client.callTool({ name: 'list_environments', arguments: {} })) as CallToolResult;
  const environments = (listed.structuredContent as { environments: ListedEnvironment[] }).environments;
  const mine = environments.find((e) => e.name === name);
  expect(mine, `list_environments lists "${name}"`).toMatchObject({ language: 'python', packages: ['sandpit_demo_b'], status: 'not-built' });
  expect(textOf(listed)).toContain(name);

  // create_session by that name builds it first, reporting progress while it does.
  const progress: string[] = [];
  const created = (await assistant.client.callTool({ name: 'create_session', arguments: { environment: name } }, undefined, {
    timeout: CALL_TIMEOUT_MS,
    resetTimeoutOnProgress: true,
    onprogress: (p) => progress.push(p.message ?? ''),
  })) as CallToolResult;
  expect(created.isError, textOf(created)).toBeFalsy();
  const session = created.structuredContent as unknown as SessionSummary;
  expect(session).toMatchObject({ environment: mine!.id, environment_name: name });
  expect(progress.some((m) => /building/.test(m)), `progress while the environment builds: ${JSON.stringify(progress)}`).toBe(true);

  // The panel lists the assistant's session under the environment's name, and shows its run live.
  const sessions = await panel.sessions();
  const row = sessions.row(session.session_id);
  await expect(row.getByTestId('session-environment')).toHaveText(name);
  await expect(row.getByTestId('session-name')).toHaveText(session.name);
  const page = await sessions.open(session.session_id);
  const marker = uniqueName('cross');
  let returned = false;
  const run = assistant
    .run(['import time, sandpit_demo_b', `print("${marker} first", flush=True)`, 'time.sleep(5)', `print("${marker}", sandpit_demo_b.answer(), flush=True)`].join('\n'), {
      sessionId: session.session_id,
    })
    .finally(() => (returned = true));
  await expect(page.stdoutWith(`${marker} first`)).toBeVisible({ timeout: 15_000 });
  expect(returned, 'the first line is in the panel while execute_code has not returned').toBe(false);
  const output = await run;
  expect(output.status).toBe('ok');
  expect(output.stdout).toContain(`${marker} 84`);
  await expect(page.stdoutWith(`${marker} 84`)).toBeVisible();
  await expect(page.root).toContainText(name);
  await saveScreenshot(panel.page, testInfo, 'session-from-panel-environment');

  // REST: the same environment, by its name.
  const response = await fetch(`${server.url}/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
    body: JSON.stringify({ env: name, code: 'import sandpit_demo_b\nprint(sandpit_demo_b.answer())' }),
  });
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ stdout: '84\n', exit_code: 0 });
  const rest = (await (await fetch(`${server.url}/list-envs`, { headers: { authorization: `Bearer ${server.token}` } })).json()) as {
    environments: Array<{ name: string; status: string }>;
  };
  expect(rest.environments.find((e) => e.name === name)?.status).toBe('ready');
}

export async function dataPresetPlotsAsImageContent({ assistants }: FlowContext): Promise<void> {
  const assistant = await assistants.connect(uniqueName('e2e-plot'));
  const created = (await assistant.client.callTool({ name: 'create_session', arguments: { environment: 'python-data' } }, undefined, {
    timeout: CALL_TIMEOUT_MS,
  })) as CallToolResult;
  expect(created.isError, textOf(created)).toBeFalsy();
  const { session_id: sessionId, environment_name: environmentName } = created.structuredContent as unknown as SessionSummary;
  expect(environmentName).toBe('Python (data)');
  const result = await assistant.execute(
    ['import matplotlib.pyplot as plt', 'import numpy as np', 'x = np.linspace(0, 6, 50)', 'plt.plot(x, np.sin(x))', 'plt.title("sine")', 'plt.show()'].join('\n'),
    { sessionId },
  );
  expect(result.isError, textOf(result)).toBeFalsy();
  const images = result.content.filter((c) => c.type === 'image');
  expect(images.length, 'the plot comes back as image content').toBeGreaterThan(0);
  const image = images[0] as { data: string; mimeType: string };
  expect(image.mimeType).toBe('image/png');
  // A real PNG: its signature, and more than a few bytes.
  const bytes = Buffer.from(image.data, 'base64');
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(bytes.length).toBeGreaterThan(2_000);
}
