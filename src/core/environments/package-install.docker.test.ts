import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { PACKAGES_DIR } from '../sandbox/sandbox-paths';
import { startPackageIndex } from '../../test-support/package-index';
import type { PackageIndex } from '../../test-support/package-index';
import { recordingDocker } from '../../test-support/recording-docker';
import type { RecordingDocker } from '../../test-support/recording-docker';
import { testDocker } from '../../test-support/docker';
import { packageTestCalls } from '../../test-support/package-test-calls';
import { rawRequest } from '../../test-support/http-client';
import type { RawResponse } from '../../test-support/http-client';
import { startHttpServer } from '../http/http-server';
import { generateToken } from '../connect/token';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

const PANEL: CallContext = { transport: 'internal' };
const VENV_PYTHON = '/opt/sandpit/venv/bin/python3';

/**
 * Runtime pip installs against a PEP 503 index the test starts on its own internal Docker network
 * (no route out): the installer helper joins that network, the session itself never gets one.
 */
describe('pip installs in a helper container, from a local index', () => {
  let index: PackageIndex | undefined;
  let sp: TestSandpit | undefined;
  let recorder: RecordingDocker;
  let sessionId: string;

  const api = (): TestSandpit => sp!;
  const { install, check, run } = packageTestCalls(api, PANEL);

  beforeAll(async () => {
    const image = inject('images').python;
    if (!image) throw new Error('The python executor image was not built by the docker globalSetup.');
    index = await startPackageIndex(testDocker(), { image });
    recorder = recordingDocker(testDocker());
    sp = await startTestSandpit({ pipIndexUrl: index.url, installNetwork: index.network }, { docker: recorder.docker });
    sessionId = (await newSession(sp, {})).id;
  });
  afterAll(async () => {
    await sp?.cleanup();
    await index?.stop();
  });

  it('serves the demo projects on an internal network', () => {
    expect(index!.packages).toEqual(['sandpit-demo-a', 'sandpit-demo-b']);
    expect(index!.url).toBe('http://pypi-index:8080/simple');
    expect(index!.network).toMatch(/^sandpit-test-net-[0-9a-f]+$/);
  });

  it('installs a package and its dependency into a running session, which imports them at once', async () => {
    await run(sessionId, "marker = 'kept'");
    // A failed import before the install must not stick (the agent invalidates import caches).
    const before = await api().sessions.session(sessionId).execute('import sandpit_demo_b');
    expect(before.error?.name).toBe('ModuleNotFoundError');
    expect((await check(sessionId, ['sandpit_demo_b', 'sandpit_demo_a'])).packages).toEqual([
      { name: 'sandpit_demo_b', installed: false },
      { name: 'sandpit_demo_a', installed: false },
    ]);

    const { results } = await install(sessionId, ['sandpit_demo_b']);
    expect(results).toEqual([{ package: 'sandpit_demo_b', ok: true, version: '2.1.0' }]);

    // Same session, same interpreter: variables kept, both packages importable without a restart.
    expect(await run(sessionId, "import sandpit_demo_b, sandpit_demo_a\n(sandpit_demo_b.answer(), sandpit_demo_a.VALUE, sandpit_demo_a.greet('x'), marker)"))
      .toBe("(84, 42, 'hello x', 'kept')");
    expect(await run(sessionId, 'sandpit_demo_a.__file__')).toBe(`'${PACKAGES_DIR}/sandpit_demo_a/__init__.py'`);
    expect((await check(sessionId, ['sandpit_demo_b', 'sandpit-demo-a'])).packages).toEqual([
      { name: 'sandpit_demo_b', installed: true, version: '2.1.0' },
      { name: 'sandpit-demo-a', installed: true, version: '1.0.0' },
    ]);
    expect(api().sessions.session(sessionId).info().packages).toEqual(['sandpit_demo_b']);
  });

  it('leaves the session without a network: NetworkMode none, only lo inside', async () => {
    const containerId = api().sessions.session(sessionId).info().containerId;
    const inspected = await new Docker().getContainer(containerId).inspect();
    expect(inspected.HostConfig.NetworkMode).toBe('none');
    expect(Object.keys(inspected.NetworkSettings.Networks ?? {})).toEqual(['none']);
    expect(await run(sessionId, "import os\nsorted(os.listdir('/sys/class/net'))")).toBe("['lo']");
    // The installer, not the session, was on the index's network.
    const installers = recorder.withRole('installer');
    expect(installers.length).toBeGreaterThan(0);
    for (const spec of installers) expect(spec.hostConfig.NetworkMode).toBe(index!.network);
    const session = recorder.created.find((s) => s.name === `sandpit-${sessionId}`);
    expect(session?.hostConfig.NetworkMode).toBe('none');
  });

  it('reports each package on its own: a missing one fails in plain words (pip\'s own in the detail), a good one in the same call installs', async () => {
    const other = (await newSession(api(), {})).id;
    try {
      const { results } = await install(other, ['sandpit_no_such_pkg', 'sandpit_demo_a==0.9.0']);
      expect(results).toHaveLength(2);
      expect(results[0]).toMatchObject({ package: 'sandpit_no_such_pkg', ok: false });
      expect(results[0]?.error).toMatch(/^“sandpit_no_such_pkg” was not found on the package index \(pypi-index:8080\)/);
      expect(results[0]?.diagnosis).toMatchObject({ cause: 'not-found', affected: ['sandpit_no_such_pkg'] });
      expect(results[0]?.detail).toMatch(/No matching distribution found|Could not find a version/);
      expect(results[1]).toEqual({ package: 'sandpit_demo_a==0.9.0', ok: true, version: '0.9.0' });
      expect(await run(other, 'import sandpit_demo_a\nsandpit_demo_a.VALUE')).toBe('41');
      expect(api().sessions.session(other).info().packages).toEqual(['sandpit_demo_a==0.9.0']);
    } finally {
      await api().sessions.stop(other);
    }
  });

  it.each([['numpy; rm -rf /'], ['--index-url=http://x'], ['-e .'], ['sandpit_demo_a @ http://x/a.whl'], ['sandpit_demo_a\nsandpit_demo_b']])(
    'refuses %j with INVALID_INPUT before any process starts',
    async (bad) => {
      const created = recorder.created.length;
      await expect(install(sessionId, ['sandpit_demo_a', bad])).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining(bad) as unknown });
      await expect(call(api().api, 'sessions.create', { dependencies: [bad] }, PANEL)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(recorder.created.length).toBe(created);
    },
  );

  it('creates a session with dependencies that import at once', async () => {
    const info = await call(api().api, 'sessions.create', { dependencies: ['sandpit_demo_a'] }, PANEL);
    try {
      expect(info.packages).toEqual(['sandpit_demo_a']);
      expect(await run(info.id, 'import sandpit_demo_a\n(sandpit_demo_a.VALUE, sandpit_demo_a.greet("y"))')).toBe("(42, 'hello y')");
    } finally {
      await api().sessions.stop(info.id);
    }
  });

  it('never runs a shell: the installer is the venv python, isolated (-I), with argv only, and is removed afterwards', async () => {
    const installers = recorder.withRole('installer');
    // b; missing+pin (all, then one by one); the session created with dependencies.
    expect(installers).toHaveLength(5);
    for (const spec of installers) {
      const cmd = spec.cmd ?? [];
      // -I: not the session's PYTHONPATH (its package store), no user site, no working folder on the import path.
      expect(cmd.slice(0, 5)).toEqual([VENV_PYTHON, '-I', '-m', 'pip', 'install']);
      expect(cmd).toContain('--');
      expect(cmd).not.toContain('-c');
      expect(cmd.some((arg) => /(^|\/)(ba|da|z)?sh$/.test(arg))).toBe(false);
      const dashes = cmd.indexOf('--');
      expect(cmd.slice(dashes + 1).every((arg) => /^sandpit[-_a-z0-9=.]*$/.test(arg))).toBe(true);
      expect(cmd).toEqual(expect.arrayContaining(['--target', PACKAGES_DIR, '--index-url', index!.url]));
      expect(spec.user).toBe('10001:10001');
      expect(spec.hostConfig).toMatchObject({ CapDrop: ['ALL'], ReadonlyRootfs: true, NetworkMode: index!.network });
    }
    expect(await api().docker.listContainers({ 'dev.sandpit.role': 'installer', 'dev.sandpit.instance': api().identity.instanceId })).toEqual([]);
  });

  it('POST /install (REST) installs into the token\'s default session and refuses bad names with 400', async () => {
    const token = generateToken();
    const http = await startHttpServer({ sandpit: api(), port: 0, token });
    try {
      const post = (body: unknown): Promise<RawResponse> =>
        rawRequest({ port: http.port, method: 'POST', path: '/install', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body), timeoutMs: 120_000 });
      const bad = await post({ packages: ['numpy; rm -rf /'] });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('INVALID_INPUT');
      const good = await post({ packages: ['sandpit_demo_a'] });
      expect(good.status, good.text).toBe(200);
      expect(good.json).toEqual({ results: [{ package: 'sandpit_demo_a', ok: true, version: '1.0.0' }] });
    } finally {
      await http.close();
    }
  });
});
