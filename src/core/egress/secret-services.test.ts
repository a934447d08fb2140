import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../log';
import { secretServices } from './secret-services';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('secret services, per session', () => {
  it("puts a secret ticked for one session into that session's requests only, its hosts join that session's allowed hosts only, and a deleted one stops at once", async () => {
    const home = await mkdtemp(join(tmpdir(), 'sandpit-secret-services-'));
    dirs.push(home);
    // Two live sessions of the same environment; only the first had "weather" ticked.
    const live: Record<string, { environment?: string; secrets: string[] }> = {
      'ses-ticked': { environment: 'py', secrets: ['weather'] },
      'ses-plain': { environment: 'py', secrets: [] },
    };
    const services = secretServices({ home, instanceDir: home, sessionOf: (id) => live[id], onUsed: () => undefined, log: silentLogger });
    await services.store.save({ name: 'openai', value: 'env-value', hosts: ['api.openai.com'], environments: ['py'] });
    await services.store.save({ name: 'weather', value: 'session-value', hosts: ['api.weather.test'] });

    const valuesFor = async (sessionId: string, host: string): Promise<string[]> => (await services.gateway.secretsFor(sessionId, host, 443)).map((s) => s.value);
    expect(await valuesFor('ses-ticked', 'api.weather.test')).toEqual(['session-value']);
    expect(await valuesFor('ses-plain', 'api.weather.test')).toEqual([]);
    expect(await valuesFor('ses-gone', 'api.weather.test')).toEqual([]);
    // Its environment's secret is still there for both.
    expect(await valuesFor('ses-ticked', 'api.openai.com')).toEqual(['env-value']);
    expect(await valuesFor('ses-plain', 'api.openai.com')).toEqual(['env-value']);
    expect(services.hostsOf('ses-ticked')).toEqual(['api.openai.com', 'api.weather.test']);
    expect(services.hostsOf('ses-plain')).toEqual(['api.openai.com']);

    // Deleted while the session runs: its requests get it no more, and its host is no longer allowed for it.
    await services.store.delete('weather');
    expect(await valuesFor('ses-ticked', 'api.weather.test')).toEqual([]);
    expect(services.hostsOf('ses-ticked')).toEqual(['api.openai.com']);
  });
});
