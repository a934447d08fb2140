import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { secretServices } from '../egress/secret-services';
import type { SecretServices } from '../egress/secret-services';
import { silentLogger } from '../log';
import type { EgressAccess } from './environment-services';
import { secretsRefusal, sessionConnection } from './session-connection';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const egress: EgressAccess = {
  network: 'sandpit-egress-1',
  env: (id) => ({ HTTPS_PROXY: `http://${id}:pass@10.0.0.1:3128` }),
  installerProxy: () => ({ network: 'sandpit-egress-1', env: {}, pipProxyUrl: 'http://x:pass@10.0.0.1:3128' }),
};

async function services(): Promise<SecretServices> {
  const home = await mkdtemp(join(tmpdir(), 'sandpit-connection-'));
  dirs.push(home);
  const made = secretServices({ home, instanceDir: home, sessionOf: () => undefined, onUsed: () => undefined, log: silentLogger });
  await made.store.save({ name: 'openai', value: 'env-value', hosts: ['api.openai.com'], environments: ['py'] });
  await made.store.save({ name: 'weather', value: 'session-value', hosts: ['api.weather.test'] });
  return made;
}

describe("a session's connection with the secrets ticked for it", () => {
  it("gives the placeholders of its environment's secrets and of its own, and the CA bundle — never a value", async () => {
    const secrets = await services();
    const environments = { egress: () => egress, openNetwork: 'bridge', secrets: secrets.environments };
    const c = await sessionConnection('packages', 'py', environments, ['weather']);
    expect(c.secrets).toEqual([
      { name: 'openai', hosts: ['api.openai.com'], envVar: 'OPENAI_API_KEY' },
      { name: 'weather', hosts: ['api.weather.test'], envVar: 'WEATHER_API_KEY', forSession: true },
    ]);
    const env = typeof c.containerEnv === 'function' ? c.containerEnv('ses-1') : c.containerEnv;
    expect(env).toMatchObject({ HTTPS_PROXY: 'http://ses-1:pass@10.0.0.1:3128', OPENAI_API_KEY: 'sandpit-secret-openai', WEATHER_API_KEY: 'sandpit-secret-weather', SSL_CERT_FILE: '/etc/sandpit-ca/ca-bundle.pem' });
    expect(JSON.stringify(env)).not.toMatch(/env-value|session-value/);
    expect(await readFile(join(c.caDir ?? '', 'ca-bundle.pem'), 'utf8')).toContain('BEGIN CERTIFICATE');
    // An environment with no secret of its own, one ticked: still the placeholder and the CA.
    const only = await sessionConnection('packages', 'other', environments, ['weather']);
    expect(only.secrets?.map((s) => s.name)).toEqual(['weather']);
    expect(only.caDir).toBe(c.caDir);
    // Nothing ticked, no secret of its environment: no CA, no placeholders.
    const none = await sessionConnection('packages', 'other', environments);
    expect(none.secrets).toBeUndefined();
    expect(none.caDir).toBeUndefined();
  });

  it('says in plain words why ticked secrets cannot go to a session of an environment, before anything starts', async () => {
    const secrets = (await services()).environments;
    expect(await secretsRefusal({ name: 'Offline', network: 'none' }, ['weather'], secrets)).toBe('The environment "Offline" has no network, so its sessions reach no host: a secret cannot be used there.');
    expect(await secretsRefusal({ name: 'Open', network: 'open' }, ['weather'], secrets)).toBe(
      'The environment "Open" has the open network, which does not go through Sandpit\'s proxy: a secret is put in by that proxy only, so none can be used there.',
    );
    expect(await secretsRefusal({ name: 'Proxied', network: 'packages' }, ['weather', 'nope'], secrets)).toBe('There is no secret "nope": add it in Settings → Secrets first.');
    expect(await secretsRefusal({ name: 'Proxied', network: 'packages' }, ['weather', 'nope', 'also-not', 'third'], secrets)).toBe('There are no secrets "nope", "also-not" and "third": add them in Settings → Secrets first.');
    expect(await secretsRefusal({ name: 'Proxied', network: 'packages' }, ['weather', 'openai'], secrets)).toBeUndefined();
    expect(await secretsRefusal({ name: 'Offline', network: 'none' }, [], secrets)).toBeUndefined();
    expect(await secretsRefusal({ name: 'Proxied', network: 'packages' }, ['weather'], undefined)).toBe('Secrets are not available in this Sandpit.');
  });
});
