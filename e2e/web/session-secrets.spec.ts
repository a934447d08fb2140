/**
 * Issue 18, a secret for one session: in the New session dialog the person ticks a secret of Settings → Secrets for
 * this session only (its environment has none); the session page says so; code run from the panel calls an HTTPS API
 * with the stand-in and Sandpit's egress proxy puts the value in; the Network tab says "used secret …". Environments
 * whose network does not go through the proxy say why no secret is offered. The API is a server on a Docker network
 * this spec creates, with a test CA only this spec's Sandpit trusts (NODE_EXTRA_CA_CERTS); nothing leaves this machine.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { DockerodeClient } from '../../src/core/docker/dockerode-client';
import { silentLogger } from '../../src/core/log';
import { startHttpsUpstream } from '../../src/test-support/https-upstream';
import { PanelPage } from '../pages/panel-page';
import { SessionPage } from '../pages/session-page';
import { callApi, uniqueName } from '../support/panel-api';
import { startOwnSandpit } from '../support/own-sandpit';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

const VALUE = 'wk-e2e-session-5f2a9c-the-sandbox-never-holds-this';
const BEARER_SHA = createHash('sha256').update(`Bearer ${VALUE}`).digest('hex');

test('a secret ticked for one session in the New session dialog is put into its requests; the page and the Network tab say so', async ({ page, server }, testInfo) => {
  test.setTimeout(240_000);
  const upstream = await startHttpsUpstream(new DockerodeClient({ logger: silentLogger }), server.pythonImage);
  const caFile = testInfo.outputPath('upstream-ca.pem');
  writeFileSync(caFile, upstream.ca);
  const own = await startOwnSandpit(testInfo, server.pythonImage, { env: { SANDPIT_EGRESS_PROXY: 'on', NODE_EXTRA_CA_CERTS: caFile } });
  try {
    const envName = uniqueName('Forecasts');
    const env = (await callApi(own.info, 'environments.create', { name: envName, language: 'python', network: 'packages' })) as { id: string };
    const openEnv = (await callApi(own.info, 'environments.create', { name: uniqueName('Open web'), language: 'python', network: 'open' })) as { id: string };
    // A secret of Settings → Secrets attached to no environment.
    await callApi(own.info, 'secrets.save', { name: 'weather', value: VALUE, hosts: [upstream.ip] });
    const sent: string[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/api')) void response.text().then((t) => sent.push(t), () => undefined);
    });

    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    await panel.sessions();
    await page.getByTestId('session-new').click();
    // Environments whose requests do not go through Sandpit's proxy: no secret offered, and why.
    await page.getByTestId('new-session-environment-python').check();
    await expect(page.getByTestId('new-session-secrets-why')).toHaveText('Secrets are not offered: this environment has no network, so its sessions reach no host.');
    await expect(page.getByTestId('new-session-secrets')).toHaveCount(0);
    await page.getByTestId(`new-session-environment-${openEnv.id}`).check();
    await expect(page.getByTestId('new-session-secrets-why')).toHaveText("Secrets are not offered: this environment's open network does not go through Sandpit's proxy, which is what puts a secret into requests.");
    // The environment on the proxy: the secret is offered by name and host, and ticked.
    await page.getByTestId(`new-session-environment-${env.id}`).check();
    const offered = page.getByTestId('new-session-secrets');
    await expect(offered.locator('legend')).toHaveText('Secrets this session may use');
    await expect(offered.locator('label')).toHaveText([`weather — sent to ${upstream.ip}`]);
    await page.getByTestId('new-session-secret-weather').check();
    await saveScreenshot(page, testInfo, 'new-session-secrets');
    await page.getByTestId('new-session-start').click();

    const root = page.getByTestId('session-page');
    await expect(root).toBeVisible({ timeout: 120_000 });
    const session = new SessionPage(page, (await root.getAttribute('data-session-id'))!);
    await expect(session.root.getByTestId('session-secrets')).toHaveText(`Its requests to ${upstream.ip} carry the secret weather, ticked for this session (inside, WEATHER_API_KEY holds only a stand-in).`);

    // Code run from the panel sends only the stand-in; the API gets the value.
    await session.runHere(
      [
        'import json, os, urllib.request',
        "key = os.environ['WEATHER_API_KEY']",
        `req = urllib.request.Request('https://${upstream.ip}/forecast', headers={'Authorization': 'Bearer ' + key})`,
        'got = json.loads(urllib.request.urlopen(req, timeout=20).read())',
        `print('stand-in:', key, '| the API got the secret:', got['sha256'] == '${BEARER_SHA}')`,
      ].join('\n'),
    );
    await expect(session.stdout.last()).toHaveText('stand-in: sandpit-secret-weather | the API got the secret: True');
    await session.root.getByTestId('session-tab-network').click();
    await expect(session.root.getByTestId('network-secret')).toHaveText([` — used secret weather for ${upstream.ip}`]);
    await saveScreenshot(page, testInfo, 'session-secrets-network');

    // The value: in no page and no answer the panel got.
    expect(await page.content()).not.toContain(VALUE);
    expect(sent.join('\n')).not.toContain(VALUE);
  } finally {
    await own.dispose();
    await upstream.stop();
  }
});
