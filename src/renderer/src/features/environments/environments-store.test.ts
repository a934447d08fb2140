import { describe, expect, it, vi } from 'vitest';
import type { SandpitClient } from '../../../../shared/api/client';
import type { EnvironmentView as Environment } from '../../../../shared/domain/environment';
import { MAX_LOG_LINES, appendLogLine, createEnvironmentsStore } from './environments-store';

function env(id: string, preset = false, build?: Environment['build']): Environment {
  return {
    id,
    name: id,
    language: 'python',
    base: 'python',
    packages: { pip: ['nump'], npm: [], apt: [], cran: [] },
    network: 'none',
    limits: {},
    allowedHosts: [],
    preset,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...(build ? { build } : {}),
    status: build?.state === 'failed' ? { state: 'failed', message: 'The last build failed.' } : { state: 'not-built', message: 'Not built yet.' },
  };
}

describe('environments store', () => {
  it('keeps the build log bounded, with the latest progress', () => {
    let log = appendLogLine(undefined, 'Step 1/3', 1, 3);
    log = appendLogLine(log, 'pip install');
    expect(log).toEqual({ lines: ['Step 1/3', 'pip install'], step: 1, steps: 3, trimmed: false });
    for (let i = 0; i < MAX_LOG_LINES; i++) log = appendLogLine(log, `l${i}`);
    expect(log.lines).toHaveLength(MAX_LOG_LINES);
    expect(log.trimmed).toBe(true);
  });

  it('lists presets first, builds with a live log and reports a failed build', async () => {
    const failed = env('data', false, { state: 'failed', error: 'No matching distribution', failedPackage: 'nump' });
    const call = vi.fn((name: string) => {
      if (name === 'environments.list') return Promise.resolve({ environments: [env('data'), env('python', true)] });
      if (name === 'environments.build') return Promise.resolve(failed);
      return Promise.reject(new Error(name));
    });
    const client = { transport: 'ipc', call, subscribe: () => () => undefined } as unknown as SandpitClient;
    const store = createEnvironmentsStore(client);
    await store.getState().load();
    expect(store.getState().environments.map((e) => e.id)).toEqual(['python', 'data']);
    const building = store.getState().build('data');
    expect(store.getState().building).toEqual(['data']);
    store.getState().applyEvent({
      name: 'environment.buildLog',
      payload: { environmentId: 'data', line: 'Step 2/4', step: 2, steps: 4 },
    });
    await expect(building).resolves.toBe('No matching distribution');
    expect(store.getState().building).toEqual([]);
    expect(store.getState().logs.data).toMatchObject({ lines: ['Step 2/4'], step: 2, steps: 4 });
    store.getState().applyEvent({ name: 'environment.removed', payload: { environmentId: 'data' } });
    expect(store.getState().environments.map((e) => e.id)).toEqual(['python']);
  });

  it('keeps the secrets an environment may use across its updates, and reads them again when secrets change', async () => {
    const openai = [{ name: 'openai', hosts: ['api.openai.com'], envVar: 'OPENAI_API_KEY' }];
    let listed: Environment[] = [{ ...env('data'), network: 'packages', secrets: openai }];
    const call = vi.fn((name: string) => (name === 'environments.list' ? Promise.resolve({ environments: listed }) : Promise.reject(new Error(name))));
    const store = createEnvironmentsStore({ transport: 'ipc', call, subscribe: () => () => undefined } as unknown as SandpitClient);
    await store.getState().load();
    // A build's update carries no secrets: the card still says which it may use.
    store.getState().applyEvent({ name: 'environment.updated', payload: { ...env('data', false, { state: 'ready' }), network: 'packages' } });
    expect(store.getState().environments[0]?.secrets).toEqual(openai);
    expect(store.getState().environments[0]?.build?.state).toBe('ready');
    // Detached in Settings → Secrets (maybe in another window): the list is read again.
    listed = [{ ...env('data'), network: 'packages' }];
    store.getState().applyEvent({ name: 'secrets.changed', payload: { names: ['openai'] } });
    await vi.waitFor(() => expect(store.getState().environments[0]?.secrets).toBeUndefined());
    expect(call).toHaveBeenCalledTimes(2);
  });
});
