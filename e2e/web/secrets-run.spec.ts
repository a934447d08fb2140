/**
 * Issue 18, end to end: a person adds a secret in Settings → Secrets and attaches it to an environment; an assistant
 * (the MCP SDK's client) runs code in a session of it that calls an HTTPS API with only the stand-in; Sandpit's egress
 * proxy puts the value in. The session's Network tab says "used secret …", Activity's detail "Could use the secrets: …",
 * and the value is in no page and no answer the panel got. The API is a server on a Docker network this spec creates,
 * reached by its address, with a test CA that only this spec's Sandpit trusts (NODE_EXTRA_CA_CERTS); nothing leaves
 * this machine.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DockerodeClient } from '../../src/core/docker/dockerode-client';
import { silentLogger } from '../../src/core/log';
import { startHttpsUpstream } from '../../src/test-support/https-upstream';
import { PanelPage } from '../pages/panel-page';
import { connectAssistant, textOf } from '../support/mcp';
import { callApi, uniqueName } from '../support/panel-api';
import { startOwnSandpit } from '../support/own-sandpit';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

const VALUE = 'wk-e2e-7b1c0d9e-the-sandbox-never-holds-this';
const BEARER_SHA = createHash('sha256').update(`Bearer ${VALUE}`).digest('hex');

test('a secret added in Settings is put into an assistant\'s request for its host: Network says "used secret", Activity names it', async ({ page, server }, testInfo) => {
  test.setTimeout(240_000);
  const upstream = await startHttpsUpstream(new DockerodeClient({ logger: silentLogger }), server.pythonImage);
  const caFile = testInfo.outputPath('upstream-ca.pem');
  writeFileSync(caFile, upstream.ca);
  const own = await startOwnSandpit(testInfo, server.pythonImage, { env: { SANDPIT_EGRESS_PROXY: 'on', NODE_EXTRA_CA_CERTS: caFile } });
  const assistant = await connectAssistant(own.info, 'secrets-e2e-assistant');
  try {
    const envName = uniqueName('Weather API');
    const env = (await callApi(own.info, 'environments.create', { name: envName, language: 'python', network: 'packages' })) as { id: string };
    const sent: string[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/api')) void response.text().then((t) => sent.push(t), () => undefined);
    });

    // The person: Settings → Secrets, a new secret for the API's host, attached to the environment.
    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    await panel.settings();
    await page.getByTestId('secret-name').fill('weather');
    await page.getByTestId('secret-value').fill(VALUE);
    await page.getByTestId('secret-hosts').fill(upstream.ip);
    await page.getByTestId(`secret-env-${env.id}`).check();
    await page.getByTestId('secret-save').click();
    await expect(page.getByTestId('secret-row')).toContainText(`weather — sent to ${upstream.ip} in the header Authorization; in the sandbox WEATHER_API_KEY=sandpit-secret-weather; used by ${envName}`);

    // The assistant: a session of that environment, code that sends only the stand-in.
    const created = (await assistant.client.callTool({ name: 'create_session', arguments: { environment: env.id } }, undefined, { timeout: 120_000, resetTimeoutOnProgress: true })) as CallToolResult;
    expect(created.isError, textOf(created)).toBeFalsy();
    const sessionId = (created.structuredContent as { session_id: string }).session_id;
    expect(JSON.stringify(created.structuredContent)).toContain('WEATHER_API_KEY');
    const ran = await assistant.run(
      [
        'import json, os, urllib.request',
        "key = os.environ['WEATHER_API_KEY']",
        `req = urllib.request.Request('https://${upstream.ip}/forecast', headers={'Authorization': 'Bearer ' + key})`,
        'got = json.loads(urllib.request.urlopen(req, timeout=20).read())',
        `print('stand-in:', key, '| the API got the secret:', got['sha256'] == '${BEARER_SHA}')`,
      ].join('\n'),
      { sessionId },
    );
    expect(ran.stdout).toBe('stand-in: sandpit-secret-weather | the API got the secret: True\n');

    // The session's page says which secret its requests carry; its Network tab, that one was used.
    await (await panel.sessions()).open(sessionId);
    await expect(page.getByTestId('session-secrets')).toHaveText(`Its requests to ${upstream.ip} carry the secret weather (inside, WEATHER_API_KEY holds only a stand-in).`);
    await page.getByTestId('session-tab-network').click();
    await expect(page.getByTestId('network-secret')).toHaveText([` — used secret weather for ${upstream.ip}`]);
    await saveScreenshot(page, testInfo, 'secrets-network');

    // Activity: the run's detail names the secrets its session could use; so does the CSV export.
    const activity = await panel.activity();
    const row = activity.rowsWith('secrets-e2e-assistant').filter({ hasText: 'import json, os, urllib.request' }).first();
    const detail = await activity.openRow(row);
    await expect(detail.getByTestId('activity-detail-secrets')).toHaveText('Could use the secrets: weather');
    await page.getByTestId('activity-detail-close').click();
    await expect(activity.detail).toBeHidden();
    const csv = readFileSync((await (await activity.exportCsv()).path()) ?? '', 'utf8');
    expect(csv.split('\r\n')[0]).toContain('Secrets it could use');
    expect(csv).toContain('weather');

    // The value: in no page and no answer the panel got, in no CSV.
    expect(await page.content()).not.toContain(VALUE);
    expect(sent.join('\n')).not.toContain(VALUE);
    expect(csv).not.toContain(VALUE);
  } finally {
    await assistant.close();
    await own.dispose();
    await upstream.stop();
  }
});
