import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryBackend } from '../../test-support/memory-backend';
import type { ArtifactStore } from '../files/artifact-store';
import { defaultConfig } from '../config';
import { EventBus } from '../events/event-bus';
import { silentLogger } from '../log';
import type { Logger } from '../log';
import { EngineMonitor } from './engine-monitor';
import { KeptStore } from './kept-store';
import type { KeptRecord } from './kept-store';
import type { KeptConnection } from './kept-sessions';
import { SessionManager } from './session-manager';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A manager (one core) on the in-memory engine, its kept sessions in `home`. */
async function core(backend: MemoryBackend, home: string, reconnectKept?: (record: KeptRecord) => Promise<KeptConnection>, log: Logger = silentLogger): Promise<SessionManager> {
  const engine = new EngineMonitor(backend, silentLogger);
  await engine.check();
  return new SessionManager({
    config: defaultConfig({ channel: 'attach', poolSize: 0, startTimeoutMs: 5_000 }),
    backend,
    engine,
    bus: new EventBus(),
    artifacts: {} as ArtifactStore,
    installSettings: () => {
      throw new Error('no installs in these tests');
    },
    kept: new KeptStore(home, join(home, 'run'), silentLogger),
    openNetwork: 'bridge',
    ...(reconnectKept ? { reconnectKept } : {}),
    log,
  });
}

const SECRETS = [{ name: 'openai', hosts: ['api.openai.com'], envVar: 'OPENAI_API_KEY' }];

describe('a kept session on the package proxy, taken over by the next core', () => {
  it('is kept, and comes back connected by the new core: its network, pass, secrets and CA bundle, in a container made again', async () => {
    const home = await mkdtemp(join(tmpdir(), 'sandpit-kept-proxy-'));
    dirs.push(home);
    const backend = new MemoryBackend();
    const first = await core(backend, home);
    const session = await first.create({
      language: 'python',
      image: 'sandpit/python:test',
      environment: { id: 'with-key', name: 'With a key' },
      networkPolicy: 'packages',
      network: 'sandpit-egress-aaaaaaaaaaaa',
      containerEnv: (id) => ({ HTTPS_PROXY: `http://${id}:old-pass@10.0.0.1:3128`, OPENAI_API_KEY: 'sandpit-secret-openai' }),
      caDir: '/run/sandpit/old-instance/egress-ca',
      secrets: SECRETS,
      keep: true,
    });
    const before = session.runtime.record().containerId;
    await first.dispose();

    const asked: string[] = [];
    const second = await core(backend, home, async (record) => {
      asked.push(record.id);
      return {
        network: 'sandpit-egress-bbbbbbbbbbbb',
        containerEnv: (id) => ({ HTTPS_PROXY: `http://${id}:new-pass@10.0.0.9:3128`, OPENAI_API_KEY: 'sandpit-secret-openai' }),
        caDir: '/run/sandpit/new-instance/egress-ca',
        secrets: SECRETS,
      };
    });
    expect(await second.restoreKept()).toBe(1);
    expect(asked).toEqual([session.id]);
    const back = second.session(session.id).info();
    expect(back).toMatchObject({ state: 'paused', kept: true, secrets: SECRETS });
    const sandbox = backend.sandboxes.get(session.id)!;
    expect(sandbox.containerId).not.toBe(before);
    expect(sandbox.spec).toMatchObject({ network: 'sandpit-egress-bbbbbbbbbbbb', caDir: '/run/sandpit/new-instance/egress-ca' });
    expect(sandbox.spec.env?.HTTPS_PROXY).toBe(`http://${session.id}:new-pass@10.0.0.9:3128`);
    expect(sandbox.spec.env?.OPENAI_API_KEY).toBe('sandpit-secret-openai');
    // The record names the new container and network at once (a crash from here on keeps them).
    const record = JSON.parse(await readFile(join(home, 'kept-sessions', `${session.id}.json`), 'utf8')) as { network: string; sandbox: { containerId: string } };
    expect(record).toMatchObject({ network: 'sandpit-egress-bbbbbbbbbbbb', sandbox: { containerId: sandbox.containerId } });
    // No pass or secret is in the record: they are this core's, given again by the next.
    expect(JSON.stringify(record)).not.toContain('pass@');
    await second.dispose();
  });

  it('is not taken over while the new core cannot connect it (its record stays), and is once it can', async () => {
    const home = await mkdtemp(join(tmpdir(), 'sandpit-kept-proxy-'));
    dirs.push(home);
    const backend = new MemoryBackend();
    const first = await core(backend, home);
    const session = await first.create({ language: 'python', image: 'sandpit/python:test', networkPolicy: 'packages', network: 'sandpit-egress-aaaaaaaaaaaa', containerEnv: () => ({}), keep: true });
    await first.dispose();
    const file = join(home, 'kept-sessions', `${session.id}.json`);
    const written = await readFile(file, 'utf8');

    const down = await core(backend, home, () => Promise.reject(new Error('the egress proxy did not start')));
    expect(await down.restoreKept()).toBe(0);
    expect(down.list()).toEqual([]);
    // Without an egress proxy at all, likewise.
    const without = await core(backend, home);
    expect(await without.restoreKept()).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(written);
    await down.dispose();
    await without.dispose();

    const up = await core(backend, home, async () => ({ network: 'sandpit-egress-cccccccccccc', containerEnv: () => ({}) }));
    expect(await up.restoreKept()).toBe(1);
    expect(up.session(session.id).info().secrets).toBeUndefined();
    await up.dispose();
  });

  it('keeps the names of the secrets ticked for it (never its environment\'s, never a value), asks for them again, and drops one deleted since with a note', async () => {
    const home = await mkdtemp(join(tmpdir(), 'sandpit-kept-proxy-'));
    dirs.push(home);
    const backend = new MemoryBackend();
    const first = await core(backend, home);
    const weather = { name: 'weather', hosts: ['api.weather.test'], envVar: 'WEATHER_API_KEY', forSession: true as const };
    const maps = { name: 'maps', hosts: ['maps.test'], envVar: 'MAPS_API_KEY', forSession: true as const };
    const session = await first.create({
      language: 'python',
      image: 'sandpit/python:test',
      environment: { id: 'with-key', name: 'With a key' },
      networkPolicy: 'packages',
      network: 'sandpit-egress-aaaaaaaaaaaa',
      containerEnv: () => ({}),
      caDir: '/run/sandpit/old-instance/egress-ca',
      secrets: [...SECRETS, weather, maps],
      keep: true,
    });
    const file = join(home, 'kept-sessions', `${session.id}.json`);
    expect((JSON.parse(await readFile(file, 'utf8')) as KeptRecord).secrets).toEqual(['weather', 'maps']);
    // A secret deleted while it runs: it leaves the session's list, and its record is written again without it.
    first.forgetSecret('maps');
    expect(first.session(session.id).info().secrets?.map((s) => s.name)).toEqual(['openai', 'weather']);
    await vi.waitFor(async () => expect((JSON.parse(await readFile(file, 'utf8')) as KeptRecord).secrets).toEqual(['weather']), { timeout: 2_000 });
    await first.dispose();

    // The next core is asked for it by name; "weather" was deleted meanwhile: the session comes back without it, noted.
    const asked: Array<string[] | undefined> = [];
    const warned: Array<[string, Record<string, unknown> | undefined]> = [];
    const log: Logger = { ...silentLogger, warn: (message, fields) => void warned.push([message, fields]), child: () => log };
    const second = await core(
      backend,
      home,
      async (record) => {
        asked.push(record.secrets);
        return { network: 'sandpit-egress-bbbbbbbbbbbb', containerEnv: () => ({}), caDir: '/run/sandpit/new-instance/egress-ca', secrets: SECRETS };
      },
      log,
    );
    expect(await second.restoreKept()).toBe(1);
    expect(asked).toEqual([['weather']]);
    expect(second.session(session.id).info().secrets).toEqual(SECRETS);
    expect(warned).toContainEqual(['a kept session comes back without secrets that were deleted since', { sessionId: session.id, secrets: ['weather'] }]);
    expect((JSON.parse(await readFile(file, 'utf8')) as KeptRecord).secrets).toBeUndefined();
    await second.dispose();
  });
});
