import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { PACKAGES_DIR } from '../sandbox/sandbox-paths';
import { startNpmRegistry } from '../../test-support/npm-registry';
import type { NpmRegistry } from '../../test-support/npm-registry';
import { recordingDocker } from '../../test-support/recording-docker';
import type { RecordingDocker } from '../../test-support/recording-docker';
import { testDocker } from '../../test-support/docker';
import { packageTestCalls } from '../../test-support/package-test-calls';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

const PANEL: CallContext = { transport: 'internal' };

/**
 * Runtime npm installs against a registry the test starts on its own internal Docker network (no route
 * out): the installer helper joins that network, the JavaScript session itself never gets one, and
 * what was installed is require()-able in the same session at once.
 */
describe('npm installs in a helper container, from a local registry', () => {
  let registry: NpmRegistry | undefined;
  let sp: TestSandpit | undefined;
  let recorder: RecordingDocker;
  let sessionId: string;

  const api = (): TestSandpit => sp!;
  const { install, check, run } = packageTestCalls(api, PANEL);

  beforeAll(async () => {
    const images = inject('images');
    if (!images.python || !images.node) throw new Error('The python and node executor images were not built by the docker globalSetup.');
    registry = await startNpmRegistry(testDocker(), { image: images.python });
    recorder = recordingDocker(testDocker());
    sp = await startTestSandpit({ npmRegistryUrl: registry.url, installNetwork: registry.network }, { docker: recorder.docker });
    sessionId = (await newSession(sp, { language: 'javascript' })).id;
  });
  afterAll(async () => {
    await sp?.cleanup();
    await registry?.stop();
  });

  it('serves the demo packages on an internal network', () => {
    expect(registry!.packages).toEqual(['@sandpit/scoped-demo', 'sandpit-demo-js', 'sandpit-demo-js-plus']);
    expect(registry!.url).toBe('http://npm-registry:8080/');
    expect(registry!.network).toMatch(/^sandpit-test-net-[0-9a-f]+$/);
  });

  it('installs a package and its dependency into a running session, which requires them at once', async () => {
    await run(sessionId, "const marker = 'kept'");
    // A failed require (or import) before the install must not stick.
    await api().sessions.session(sessionId).execute("await import('sandpit-demo-js').catch(() => null)\ntry { require('sandpit-demo-js') } catch {}");
    const before = await api().sessions.session(sessionId).execute("require('sandpit-demo-js-plus')");
    expect(before.status).toBe('error');
    expect(before.error?.value).toMatch(/Cannot find module 'sandpit-demo-js-plus'/);
    expect((await check(sessionId, ['sandpit-demo-js-plus', 'sandpit-demo-js'])).packages).toEqual([
      { name: 'sandpit-demo-js-plus', installed: false },
      { name: 'sandpit-demo-js', installed: false },
    ]);

    const started = Date.now();
    const { results } = await install(sessionId, ['sandpit-demo-js-plus', '@sandpit/scoped-demo@^1']);
    process.stderr.write(`[npm] runtime install of 2 packages (3 with the dependency): ${Date.now() - started} ms\n`);
    expect(results).toEqual([
      { package: 'sandpit-demo-js-plus', ok: true, version: '2.1.0' },
      { package: '@sandpit/scoped-demo@^1', ok: true, version: '1.2.3' },
    ]);

    // Same session, same vm context: state kept, packages require()-able (and import()-able) without a restart.
    expect(await run(sessionId, "[require('sandpit-demo-js-plus').double(), require('sandpit-demo-js').answer, require('@sandpit/scoped-demo').scoped, marker]"))
      .toBe("[ 84, 42, true, 'kept' ]");
    expect(await run(sessionId, "(await import('sandpit-demo-js')).default.greet('x')")).toBe("'hello x'");
    expect(await run(sessionId, "require.resolve('sandpit-demo-js')")).toBe(`'${PACKAGES_DIR}/node_modules/sandpit-demo-js/index.js'`);
    expect((await check(sessionId, ['sandpit-demo-js-plus', 'sandpit-demo-js', '@sandpit/scoped-demo'])).packages).toEqual([
      { name: 'sandpit-demo-js-plus', installed: true, version: '2.1.0' },
      { name: 'sandpit-demo-js', installed: true, version: '1.0.0' },
      { name: '@sandpit/scoped-demo', installed: true, version: '1.2.3' },
    ]);
    expect(api().sessions.session(sessionId).info().packages).toEqual(['sandpit-demo-js-plus', '@sandpit/scoped-demo@^1']);
  });

  it('keeps earlier packages when another one is installed later', async () => {
    const { results } = await install(sessionId, ['sandpit-demo-js@1.0.0']);
    expect(results).toEqual([{ package: 'sandpit-demo-js@1.0.0', ok: true, version: '1.0.0' }]);
    expect((await check(sessionId, ['sandpit-demo-js-plus', '@sandpit/scoped-demo'])).packages.every((p) => p.installed)).toBe(true);
  });

  it('leaves the session without a network; only the installer joined the registry\'s', async () => {
    expect(await run(sessionId, "require('fs').readdirSync('/sys/class/net').sort()")).toBe("[ 'lo' ]");
    const installers = recorder.withRole('installer');
    expect(installers.length).toBeGreaterThan(0);
    for (const spec of installers) expect(spec.hostConfig.NetworkMode).toBe(registry!.network);
    const session = recorder.created.find((s) => s.name === `sandpit-${sessionId}`);
    expect(session?.hostConfig.NetworkMode).toBe('none');
  });

  it('reports each package on its own: a missing one fails in plain words (npm\'s own in the detail), a good one in the same call installs', async () => {
    const other = (await newSession(api(), { language: 'javascript' })).id;
    try {
      const { results } = await install(other, ['sandpit-no-such-pkg', 'sandpit-demo-js@0.9.0']);
      expect(results).toHaveLength(2);
      expect(results[0]).toMatchObject({ package: 'sandpit-no-such-pkg', ok: false });
      expect(results[0]?.error).toMatch(/^“sandpit-no-such-pkg” was not found on the npm registry/);
      expect(results[0]?.detail).toMatch(/E404|404 Not Found/);
      expect(results[0]?.detail).not.toMatch(/complete log/);
      expect(results[1]).toEqual({ package: 'sandpit-demo-js@0.9.0', ok: true, version: '0.9.0' });
      expect(await run(other, "require('sandpit-demo-js').answer")).toBe('41');
      expect(api().sessions.session(other).info().packages).toEqual(['sandpit-demo-js@0.9.0']);
    } finally {
      await api().sessions.stop(other);
    }
  });

  it.each([['lodash; rm -rf /'], ['--registry=x'], ['-g'], ['lodash$(id)'], ['git+https://x/y.git'], ['../local'], ['Lodash'], ['a\nb']])(
    'refuses %j with INVALID_INPUT before any process starts',
    async (bad) => {
      const created = recorder.created.length;
      await expect(install(sessionId, ['sandpit-demo-js', bad])).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining(bad) as unknown });
      await expect(call(api().api, 'sessions.create', { language: 'javascript', dependencies: [bad] }, PANEL)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(recorder.created.length).toBe(created);
    },
  );

  it('creates a JavaScript session with dependencies that require at once', async () => {
    const info = await call(api().api, 'sessions.create', { language: 'javascript', dependencies: ['sandpit-demo-js'] }, PANEL);
    try {
      expect(info.packages).toEqual(['sandpit-demo-js']);
      expect(await run(info.id, "require('sandpit-demo-js').greet('y')")).toBe("'hello y'");
    } finally {
      await api().sessions.stop(info.id);
    }
  });

  it('builds a JavaScript environment with npm packages (npm is in the node image); its sessions require them at once', async () => {
    const env = await call(api().api, 'environments.create', { name: 'JS demo', language: 'javascript', packages: { npm: ['sandpit-demo-js-plus'] } }, PANEL);
    // force: an image of the same definition may be left from an earlier run of this test.
    const built = await call(api().api, 'environments.build', { environmentId: env.id, force: true }, PANEL);
    expect(built.build?.state, built.build?.error).toBe('ready');
    const session = await call(api().api, 'sessions.create', { environment: env.id }, PANEL);
    try {
      expect(session.language).toBe('javascript');
      expect(await run(session.id, "require('sandpit-demo-js-plus').double()")).toBe('84');
      expect((await check(session.id, ['sandpit-demo-js-plus'])).packages).toEqual([{ name: 'sandpit-demo-js-plus', installed: true, version: '2.1.0' }]);
    } finally {
      await api().sessions.stop(session.id);
    }
  });

  it('never runs a shell: the installer is npm with argv only, into the package dir, and is removed afterwards', async () => {
    const installers = recorder.withRole('installer');
    // plus+scoped; the pin; missing+pin (all, then one by one); the session created with dependencies.
    expect(installers).toHaveLength(6);
    for (const spec of installers) {
      const cmd = spec.cmd ?? [];
      expect(cmd.slice(0, 2)).toEqual(['npm', 'install']);
      expect(cmd).toEqual(expect.arrayContaining(['--prefix', PACKAGES_DIR, '--registry', registry!.url, '--no-audit', '--no-fund', '--no-package-lock']));
      expect(cmd.some((arg) => /(^|\/)(ba|da|z)?sh$/.test(arg) || arg === '-c')).toBe(false);
      const dashes = cmd.indexOf('--');
      expect(dashes).toBeGreaterThan(0);
      expect(cmd.slice(dashes + 1).every((arg) => /^(@sandpit\/)?sandpit[-a-z0-9.@^]*$|^@sandpit\/scoped-demo@\^1$/.test(arg))).toBe(true);
      expect(spec.user).toBe('10001:10001');
      expect(spec.image).toBe(inject('images').node);
      expect(spec.hostConfig).toMatchObject({ CapDrop: ['ALL'], ReadonlyRootfs: true, NetworkMode: registry!.network });
    }
    expect(await api().docker.listContainers({ 'dev.sandpit.role': 'installer', 'dev.sandpit.instance': api().identity.instanceId })).toEqual([]);
  });
});

describe('packages in bash sessions', () => {
  let sp: TestSandpit | undefined;
  beforeAll(async () => {
    sp = await startTestSandpit();
  });
  afterAll(async () => sp?.cleanup());

  it('are pip packages (bash runs on the python image): npm specs that are not pip names are refused', async () => {
    const { id } = await newSession(sp!, { language: 'bash' });
    await expect(call(sp!.api, 'packages.check', { sessionId: id, packages: ['@scope/pkg'] }, PANEL)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('pip') as unknown });
    expect((await call(sp!.api, 'packages.check', { sessionId: id, packages: ['sandpit_not_there'] }, PANEL)).packages).toEqual([{ name: 'sandpit_not_there', installed: false }]);
  });
});
