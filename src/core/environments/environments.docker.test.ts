import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import type { EventPayload } from '../../shared/api/contract';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { pollUntil } from '../util/with-timeout';
import { testDocker } from '../../test-support/docker';
import { startPackageIndex } from '../../test-support/package-index';
import type { PackageIndex } from '../../test-support/package-index';
import { recordingDocker } from '../../test-support/recording-docker';
import type { RecordingDocker } from '../../test-support/recording-docker';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';

const PANEL: CallContext = { transport: 'internal' };

/** Environments built from a local PEP 503 index on a network the test creates (no route out). */
describe('environments', () => {
  let index: PackageIndex | undefined;
  let sp: TestSandpit | undefined;
  let recorder: RecordingDocker;
  const api = (): TestSandpit => sp!;

  beforeAll(async () => {
    const image = inject('images').python;
    if (!image) throw new Error('The python executor image was not built by the docker globalSetup.');
    index = await startPackageIndex(testDocker(), { image });
    recorder = recordingDocker(testDocker());
    sp = await startTestSandpit({ pipIndexUrl: index.url, installNetwork: index.network, poolSize: 1 }, { docker: recorder.docker });
  });
  afterAll(async () => {
    await sp?.cleanup();
    await index?.stop();
  });

  it('lists the presets', async () => {
    const { environments } = await call(api().api, 'environments.list', {}, PANEL);
    expect(environments.filter((e) => e.preset).map((e) => e.id)).toEqual(['python', 'python-data', 'node', 'bash', 'typescript', 'r']);
  });

  it('builds an environment once (live log), then finds it up to date; its sessions import at once, the second from the pool', async () => {
    const env = await call(api().api, 'environments.create', { name: 'Demo', language: 'python', packages: { pip: ['sandpit_demo_b'] } }, PANEL);
    const lines: string[] = [];
    const off = api().bus.on('environment.buildLog', (e: EventPayload<'environment.buildLog'>) => {
      if (e.environmentId === env.id) lines.push(e.line);
    });
    // force: an image of the same definition may be left from an earlier run of this test.
    const built = await call(api().api, 'environments.build', { environmentId: env.id, force: true }, PANEL);
    off();
    expect(built.build?.state).toBe('ready');
    expect(built.image?.tag).toMatch(new RegExp(`^sandpit/env-${env.id}:[0-9a-f]{12}$`));
    expect(lines.some((l) => /^Step \d+\/\d+/.test(l))).toBe(true);
    expect(lines.join('\n')).toContain('sandpit_demo_b');
    const buildsBefore = recorder.builds.length;

    const again = await call(api().api, 'environments.build', { environmentId: env.id }, PANEL);
    expect(again.image?.tag).toBe(built.image?.tag);
    expect(recorder.builds.length).toBe(buildsBefore);

    const first = await call(api().api, 'sessions.create', { environment: env.id }, PANEL);
    expect(first.environment).toBe(env.id);
    expect(first.image).toBe(built.image?.tag);
    const r = await api().sessions.session(first.id).execute('import sandpit_demo_b\nsandpit_demo_b.answer()');
    expect(r.status, r.error?.traceback).toBe('ok');
    // No install step: no installer container was ever made for this session.
    expect(recorder.withRole('installer')).toEqual([]);

    await pollUntil(() => (api().sessions.poolStatus().some((p) => p.ready >= 1 && p.key.includes(built.image!.tag)) ? true : undefined), 60_000, 'environment pool filled');
    const second = await call(api().api, 'sessions.create', { environment: env.id }, PANEL);
    expect(second.fromPool).toBe(true);
    expect(recorder.builds.length).toBe(buildsBefore);
  });

  it('names the package that failed to build, refuses sessions of the failed definition with the reason, and keeps the last good image', async () => {
    const env = await call(api().api, 'environments.create', { name: 'Breaks', language: 'python', packages: { pip: ['sandpit_demo_a'] } }, PANEL);
    const good = await call(api().api, 'environments.build', { environmentId: env.id, force: true }, PANEL);
    expect(good.build?.state).toBe('ready');
    await call(api().api, 'environments.update', { environmentId: env.id, patch: { packages: { pip: ['sandpit_demo_a', 'sandpit_no_such_pkg'], npm: [], apt: [] } } }, PANEL);
    const failed = await call(api().api, 'environments.build', { environmentId: env.id }, PANEL);
    expect(failed.build?.state).toBe('failed');
    expect(failed.build?.failedPackage).toBe('sandpit_no_such_pkg');
    expect(failed.build?.error).toContain('sandpit_no_such_pkg');
    expect(failed.image?.tag).toBe(good.image?.tag);
    expect(failed.status).toMatchObject({ state: 'failed', message: expect.stringContaining('sandpit_no_such_pkg') as unknown });
    // A session of what failed to build never silently runs on the older image.
    await expect(call(api().api, 'sessions.create', { environment: env.id }, PANEL)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/"Breaks" could not be built: “sandpit_no_such_pkg” was not found on the package index.*or use another environment\./) as unknown,
    });
    // Back to the definition that built: its image is still there, so the session starts without a build.
    await call(api().api, 'environments.update', { environmentId: env.id, patch: { packages: { pip: ['sandpit_demo_a'], npm: [], apt: [] } } }, PANEL);
    const session = await call(api().api, 'sessions.create', { environment: env.id }, PANEL);
    expect(session.image).toBe(good.image?.tag);
    expect((await api().sessions.session(session.id).execute('import sandpit_demo_a\nsandpit_demo_a.VALUE')).result).toBe('42');
  });

  it('imports requirements.txt, naming a bad line', async () => {
    const ok = await call(api().api, 'environments.import', { fileName: 'requirements.txt', content: '# deps\nsandpit_demo_a==1.0.0\n-e ./local\n' }, PANEL);
    expect(ok.packages.pip).toEqual(['sandpit_demo_a==1.0.0']);
    expect(ok.unsupported.map((u) => u.line)).toEqual([3]);
    const bad = await call(api().api, 'environments.import', { fileName: 'requirements.txt', content: 'good\n!!bad name\n' }, PANEL).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isSandpitError(bad, 'INVALID_INPUT')).toBe(true);
    expect((bad as Error).message).toMatch(/line 2/i);
  });

  it('saves a session with runtime installs as a new environment', async () => {
    const s = await call(api().api, 'sessions.create', {}, PANEL);
    const { results } = await call(api().api, 'packages.install', { sessionId: s.id, packages: ['sandpit_demo_a'] }, PANEL);
    expect(results[0]?.ok).toBe(true);
    const saved = await call(api().api, 'sessions.saveAsEnvironment', { sessionId: s.id, name: 'From session' }, PANEL);
    expect(saved.packages.pip).toEqual(['sandpit_demo_a']);
    expect(saved.language).toBe('python');
    const built = await call(api().api, 'environments.build', { environmentId: saved.id }, PANEL);
    expect(built.build?.state).toBe('ready');
  });

  it('marks an open network: the session says so and the audit log names it next to the environment', async () => {
    const env = await call(api().api, 'environments.create', { name: 'Wide open', language: 'python', network: 'open' }, PANEL);
    const s = await call(api().api, 'sessions.create', { environment: env.id }, PANEL);
    expect(s.network).toBe('open');
    // No traffic is sent: the run only computes.
    const r = await call(api().api, 'sessions.execute', { sessionId: s.id, code: '6 * 7' }, PANEL);
    expect(r.result).toBe('42');
    const { rows } = await call(api().api, 'audit.list', { filters: { sessionId: s.id }, limit: 10 }, PANEL);
    expect(rows[0]?.environment).toBe('Wide open (open network)');
  });
});
