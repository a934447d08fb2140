import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import type { SessionInfo } from '../../shared/domain/session';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { createSandpit } from '../app';
import type { Sandpit } from '../app';
import { defaultConfig } from '../config';
import type { SandpitConfig } from '../config';
import { DockerodeClient } from '../docker/dockerode-client';
import { LABEL } from '../docker/labels';
import { canLoopMount } from '../docker/workspace-storage';
import { silentLogger } from '../log';
import { pollUntil } from '../util/with-timeout';
import { startPackageIndex } from '../../test-support/package-index';
import type { PackageIndex } from '../../test-support/package-index';
import { testDocker } from '../../test-support/docker';

const PANEL: CallContext = { transport: 'internal' };
/** An assistant over MCP: the sessions it makes are its own while its MCP session lasts. */
const ASSISTANT: CallContext = { transport: 'mcp-http', client: 'test-assistant', principal: 'mcp:kept-test-1' };
const OTHER_ASSISTANT: CallContext = { transport: 'mcp-http', client: 'other-assistant', principal: 'mcp:kept-test-2' };
const RESUMED_NOTICE = 'This session was resumed after Sandpit restarted: files and installed packages are here, variables from earlier runs are not — re-run your code to rebuild them, or fork the session with replay: true, which runs its earlier successful runs again in the fork.';

/** A real core on a data folder the test keeps between cores (a restart is: dispose one, start the next on the same folder). */
async function startCore(home: string, overrides: Partial<SandpitConfig> = {}): Promise<Sandpit> {
  const images = inject('images');
  if (!images.python) throw new Error('The python executor image was not built by the docker globalSetup.');
  return createSandpit(defaultConfig({ home, poolSize: 0, egressProxy: false, graceMs: 2_000, images: { ...images }, ...overrides }), { logger: silentLogger });
}

async function run(sp: Sandpit, sessionId: string, code: string, context: CallContext = PANEL): ReturnType<typeof call<'sessions.execute'>> {
  return call(sp.api, 'sessions.execute', { sessionId, code }, context);
}

async function containerState(containerId: string): Promise<'running' | 'stopped' | 'gone'> {
  try {
    return (await testDocker().inspectContainer(containerId)).running ? 'running' : 'stopped';
  } catch (error) {
    if (isSandpitError(error, 'NOT_FOUND')) return 'gone';
    throw error;
  }
}

/** Loop devices whose backing file is `file` (sysfs). */
async function loopsBackedBy(file: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of (await readdir('/sys/block')).filter((n) => n.startsWith('loop'))) {
    const backing = await readFile(`/sys/block/${name}/loop/backing_file`, 'utf8').catch(() => '');
    if (backing.trim() === file) found.push(name);
  }
  return found;
}

async function volumesOf(sessionId: string): Promise<string[]> {
  return (await testDocker().listVolumes({ [LABEL.session]: sessionId })).map((v) => v.name).sort();
}

describe('a kept session across a real restart of the core', () => {
  let index: PackageIndex | undefined;
  let home: string;
  let first: Sandpit | undefined;
  let second: Sandpit | undefined;
  let kept: SessionInfo;
  let plain: SessionInfo;

  beforeAll(async () => {
    const image = inject('images').python;
    if (!image) throw new Error('The python executor image was not built by the docker globalSetup.');
    index = await startPackageIndex(testDocker(), { image });
    home = await mkdtemp(join(tmpdir(), 'sandpit-kept-'));
    first = await startCore(home, { pipIndexUrl: index.url, installNetwork: index.network });
  });
  afterAll(async () => {
    await first?.dispose();
    await second?.dispose();
    await index?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('keeps files, installed packages and the session record when the core quits; a plain session is removed', async () => {
    const sp = first!;
    kept = await call(sp.api, 'sessions.create', { keep: true, name: 'kept work' }, ASSISTANT);
    expect(kept.kept).toBe(true);
    plain = await call(sp.api, 'sessions.create', {}, PANEL);
    expect(plain.kept).toBe(false);
    expect((await run(sp, kept.id, "open('/workspace/notes.txt', 'w').write('written before the restart')", ASSISTANT)).status).toBe('ok');
    const installed = await call(sp.api, 'packages.install', { sessionId: kept.id, packages: ['sandpit_demo_b'] }, ASSISTANT);
    expect(installed.results).toEqual([{ package: 'sandpit_demo_b', ok: true, version: '2.1.0' }]);
    const before = await run(sp, kept.id, 'import sandpit_demo_b\nanswer = sandpit_demo_b.answer()\nanswer', ASSISTANT);
    expect(before.result).toBe('84');
    // The record follows the install at once (a crash from here on keeps the list too).
    const recordFile = join(home, 'kept-sessions', `${kept.id}.json`);
    await pollUntil(async () => ((JSON.parse(await readFile(recordFile, 'utf8')) as { packages: string[] }).packages.includes('sandpit_demo_b') ? true : undefined), 5_000, 'the record lists the package', 50);

    await sp.dispose();
    first = undefined;
    // The kept container is stopped (memory freed), not removed; its workspace and package volumes are there.
    expect(await containerState(kept.containerId)).toBe('stopped');
    expect(await volumesOf(kept.id)).toEqual([`sandpit-pkg-${kept.id}`, `sandpit-ws-${kept.id}`]);
    // Where workspaces are capped ext4 disks, the kept one's image stays attached to its loop device.
    if (await canLoopMount(true)) {
      const images = (await readdir(join(home, 'workspaces'), { recursive: true })).map(String);
      const image = images.find((f) => f.endsWith(`${kept.id}.img`));
      expect(image, 'the kept workspace disk is still there').toBeDefined();
      expect(await loopsBackedBy(join(home, 'workspaces', image!))).toHaveLength(1);
      expect(images.some((f) => f.endsWith(`${plain.id}.img`))).toBe(false);
    }
    // The plain session went with the core, container and volumes.
    expect(await containerState(plain.containerId)).toBe('gone');
    expect(await volumesOf(plain.id)).toEqual([]);
  });

  it('lists the kept session as paused on the next start, shared now that its MCP session is gone', async () => {
    second = await startCore(home, { pipIndexUrl: index!.url, installNetwork: index!.network });
    const listed = (await call(second.api, 'sessions.list', {}, PANEL)).sessions;
    expect(listed.map((s) => [s.id, s.state, s.kept, s.name])).toEqual([[kept.id, 'paused', true, 'kept work']]);
    expect(listed[0]?.packages).toEqual(['sandpit_demo_b']);
    expect(listed[0]?.createdAt).toBe(kept.createdAt);
    // Its MCP owner ended with the old core: every client may use it, like a session made in the panel.
    expect(listed[0]?.shared).toBe(true);
    expect((await call(second.api, 'sessions.list', {}, OTHER_ASSISTANT)).sessions.map((s) => s.id)).toEqual([kept.id]);
    // Listing and measuring do not resume it.
    await call(second.api, 'sessions.stats', { sessionId: kept.id }, PANEL);
    expect(await containerState(kept.containerId)).toBe('stopped');
  });

  it('resumes on first use: same id, the file and the package are there, and the first result says the variables are gone', async () => {
    const sp = second!;
    const first = await run(sp, kept.id, "open('/workspace/notes.txt').read()", OTHER_ASSISTANT);
    expect(first.status).toBe('ok');
    expect(first.result).toBe("'written before the restart'");
    expect(first.stateLost).toBe(true);
    expect(first.message).toBe(RESUMED_NOTICE);
    expect(sp.sessions.session(kept.id).info().state).toBe('ready');
    expect(await containerState(kept.containerId)).toBe('running');

    const pkg = await run(sp, kept.id, 'import sandpit_demo_b\nsandpit_demo_b.answer()');
    expect(pkg.result).toBe('84');
    // Said once: the second result is an ordinary one.
    expect(pkg.message).toBeUndefined();
    expect(pkg.stateLost).toBe(false);
    const gone = await run(sp, kept.id, 'answer');
    expect(gone.error?.name).toBe('NameError');
  });

  it('a fork with replay of the resumed session rebuilds the variables the restart took (its runs were kept in the record)', async () => {
    const sp = second!;
    const fork = await call(sp.api, 'sessions.fork', { sessionId: kept.id, replay: true }, PANEL);
    try {
      // The runs before the restart (the file write, the import, answer = …) and the ones after it, in order.
      expect(fork.replay).toMatchObject({ complete: true });
      expect(fork.replay!.ran).toBeGreaterThanOrEqual(3);
      const rebuilt = await run(sp, fork.session.id, 'answer');
      expect(rebuilt.result).toBe('84');
    } finally {
      await call(sp.api, 'sessions.stop', { sessionId: fork.session.id }, PANEL);
      await call(sp.api, 'snapshots.delete', { snapshotId: fork.snapshot.id }, PANEL);
    }
  });

  it('stop_session removes a kept session for good: container, volumes, record and workspace disk', async () => {
    const sp = second!;
    await sp.sessions.session(kept.id).pause('idle');
    expect(sp.sessions.session(kept.id).info().state).toBe('paused');
    await call(sp.api, 'sessions.stop', { sessionId: kept.id }, PANEL);
    expect(await containerState(kept.containerId)).toBe('gone');
    expect(await volumesOf(kept.id)).toEqual([]);
    expect(existsSync(join(home, 'kept-sessions', `${kept.id}.json`))).toBe(false);
    const images = await readdir(join(home, 'workspaces'), { recursive: true }).catch(() => [] as string[]);
    expect(images.filter((f) => String(f).includes(kept.id))).toEqual([]);
    await expect(call(sp.api, 'sessions.get', { sessionId: kept.id }, PANEL)).rejects.toSatisfy((e: unknown) => isSandpitError(e, 'SESSION_NOT_FOUND'));
  });
});

describe('a kept session under gVisor (strong isolation)', () => {
  let home: string;
  let sp: Sandpit | undefined;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-kept-gvisor-'));
  });
  afterAll(async () => {
    await sp?.dispose();
    await rm(home, { recursive: true, force: true });
  });

  it('comes back after a restart over the attach channel, under runsc, with its file', async (context) => {
    const { runtimes } = await testDocker().ping(5_000);
    if (!runtimes.includes('runsc-nonet')) {
      context.skip(`gVisor (runsc-nonet) is not registered with this Docker engine (runtimes: ${runtimes.join(', ')})`);
      return;
    }
    sp = await startCore(home, { defaultIsolation: 'strong' });
    const info = await call(sp.api, 'sessions.create', { keep: true }, PANEL);
    expect([info.isolation, info.channel]).toEqual(['strong', 'attach']);
    await run(sp, info.id, "open('/workspace/g.txt', 'w').write('under gVisor')");
    await sp.dispose();
    sp = await startCore(home, { defaultIsolation: 'strong' });
    const r = await run(sp, info.id, "import platform\n(open('/workspace/g.txt').read(), platform.release())");
    expect(r.result).toBe("('under gVisor', '4.4.0')");
    expect(r.message).toBe(RESUMED_NOTICE);
    expect(sp.sessions.session(info.id).runtime.engineRuntime).toBe('runsc-nonet');
    await call(sp.api, 'sessions.stop', { sessionId: info.id }, PANEL);
  });
});

describe('keeping a session later, and no longer', () => {
  let home: string;
  let sp: Sandpit | undefined;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-kept-toggle-'));
  });
  afterAll(async () => {
    await sp?.dispose();
    await rm(home, { recursive: true, force: true });
  });

  it('a session kept after it was made survives the restart; one kept and then let go does not', async () => {
    sp = await startCore(home);
    const later = await call(sp.api, 'sessions.create', {}, PANEL);
    const letGo = await call(sp.api, 'sessions.create', { keep: true }, PANEL);
    expect((await call(sp.api, 'sessions.setKept', { sessionId: later.id, keep: true }, PANEL)).kept).toBe(true);
    expect((await call(sp.api, 'sessions.setKept', { sessionId: letGo.id, keep: false }, PANEL)).kept).toBe(false);
    await run(sp, later.id, "open('/workspace/a.txt', 'w').write('a')");
    await sp.dispose();
    expect(await containerState(letGo.containerId)).toBe('gone');

    sp = await startCore(home);
    expect((await call(sp.api, 'sessions.list', {}, PANEL)).sessions.map((s) => [s.id, s.state])).toEqual([[later.id, 'paused']]);
    expect((await run(sp, later.id, "open('/workspace/a.txt').read()")).result).toBe("'a'");
  });

  it('an assistant cannot keep a session that is not its own', async () => {
    const mine = await call(sp!.api, 'sessions.create', {}, ASSISTANT);
    await expect(call(sp!.api, 'sessions.setKept', { sessionId: mine.id, keep: true }, OTHER_ASSISTANT)).rejects.toSatisfy((e: unknown) => isSandpitError(e, 'SESSION_NOT_FOUND'));
    expect(sp!.sessions.session(mine.id).kept).toBe(false);
  });
});

describe('idle sessions pause instead of stopping (Settings: idle action "pause")', () => {
  let index: PackageIndex | undefined;
  let home: string;
  let sp: Sandpit | undefined;
  beforeAll(async () => {
    const image = inject('images').python;
    if (!image) throw new Error('The python executor image was not built by the docker globalSetup.');
    index = await startPackageIndex(testDocker(), { image });
    home = await mkdtemp(join(tmpdir(), 'sandpit-idle-pause-'));
    sp = await startCore(home, { pipIndexUrl: index.url, installNetwork: index.network, idleTtlMs: 1_500, idleAction: 'pause' });
  });
  afterAll(async () => {
    await sp?.dispose();
    await index?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('stops the container when idle, keeps files and packages, and resumes on the next call saying the variables are gone', async () => {
    const api = sp!;
    const info = await call(api.api, 'sessions.create', {}, PANEL);
    await run(api, info.id, "open('/workspace/idle.txt', 'w').write('still here')\nx = 1");
    expect((await call(api.api, 'packages.install', { sessionId: info.id, packages: ['sandpit_demo_a'] }, PANEL)).results[0]?.ok).toBe(true);
    const events: string[] = [];
    api.bus.on('session.paused', (e) => events.push(`paused:${e.sessionId}:${e.reason}`));
    api.bus.on('session.resumed', (e) => events.push(`resumed:${e.sessionId}`));

    await pollUntil(() => (api.sessions.session(info.id).info().state === 'paused' ? true : undefined), 20_000, 'the idle session paused', 100);
    expect(await containerState(info.containerId)).toBe('stopped');
    const resumed = await run(api, info.id, "import sandpit_demo_a\n(open('/workspace/idle.txt').read(), sandpit_demo_a.VALUE, 'x' in globals())");
    expect(resumed.result).toBe("('still here', 42, False)");
    expect(resumed.stateLost).toBe(true);
    expect(resumed.message).toMatch(/^This session was paused after 1 minute without use, to free its memory, and has been resumed: files and installed packages are here, variables from earlier runs are not \(memory cannot be saved on this machine\)/);
    expect(events).toEqual([`paused:${info.id}:idle`, `resumed:${info.id}`]);
    // The same container, started again.
    expect(api.sessions.session(info.id).info().containerId).toBe(info.containerId);
    expect(await containerState(info.containerId)).toBe('running');
  });

  it('with idle action "stop" an idle session that is not kept is removed, and a kept one is paused', async () => {
    const api = sp!;
    api.config.idleAction = 'stop';
    const plain = await call(api.api, 'sessions.create', {}, PANEL);
    const kept = await call(api.api, 'sessions.create', { keep: true }, PANEL);
    await pollUntil(() => (api.sessions.list().some((s) => s.id === plain.id) ? undefined : true), 20_000, 'the idle plain session stopped', 100);
    await pollUntil(() => (api.sessions.session(kept.id).info().state === 'paused' ? true : undefined), 20_000, 'the idle kept session paused', 100);
    expect(await containerState(plain.containerId)).toBe('gone');
    expect(await containerState(kept.containerId)).toBe('stopped');
  });
});

describe('the reaper after a crash of a core with a kept session', () => {
  it('removes the plain session it left and leaves the kept one, which the next core lists as paused and resumes', async () => {
    const docker = new DockerodeClient({ logger: silentLogger });
    const home = await mkdtemp(join(tmpdir(), 'sandpit-kept-crash-'));
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../../test-support/kept-crash-child.mts')], {
      env: { ...process.env, SANDPIT_HOME: home, SANDPIT_TEST_IMAGE: inject('images').python! },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('child did not report')), 90_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) {
          clearTimeout(timer);
          resolve(out.trim());
        }
      });
    });
    const report = JSON.parse(line) as { kept: { id: string; containerId: string }; plain: { id: string; containerId: string }; instanceId: string };
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    let next: Sandpit | undefined;
    try {
      // Another core (another data folder) reaps first: it must leave the kept session alone too.
      const stranger = await mkdtemp(join(tmpdir(), 'sandpit-stranger-'));
      const other = await startCore(stranger);
      await other.dispose();
      await rm(stranger, { recursive: true, force: true });
      expect(await containerState(report.plain.containerId)).toBe('gone');
      expect(await volumesOf(report.plain.id)).toEqual([]);
      // Still running (the core was killed, nothing stopped it), with its volumes.
      expect(await containerState(report.kept.containerId)).toBe('running');
      expect(await volumesOf(report.kept.id)).toEqual([`sandpit-pkg-${report.kept.id}`, `sandpit-ws-${report.kept.id}`]);

      next = await startCore(home);
      expect(next.sessions.list().map((s) => [s.id, s.state])).toEqual([[report.kept.id, 'paused']]);
      const r = await run(next, report.kept.id, "open('/workspace/note.txt').read()");
      expect(r.result).toBe(`'written by ${report.kept.id}'`);
      expect(r.message).toBe(RESUMED_NOTICE);
      await call(next.api, 'sessions.stop', { sessionId: report.kept.id }, PANEL);
      expect(await containerState(report.kept.containerId)).toBe('gone');
    } finally {
      await next?.dispose();
      for (const id of [report.kept.containerId, report.plain.containerId]) await docker.removeContainer(id).catch(() => undefined);
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('a kept session with a shared folder', () => {
  it('comes back with its folder after a restart: listed, mounted as before, in the new container it got for it', async () => {
    const home = await mkdtemp(join(tmpdir(), 'sandpit-kept-folder-'));
    const share = await mkdtemp(join(tmpdir(), 'sandpit-kept-share-'));
    await chmod(share, 0o755);
    await writeFile(join(share, 'data.txt'), 'from the host');
    let first: Sandpit | undefined = await startCore(home);
    let second: Sandpit | undefined;
    try {
      const made = await call(first.api, 'sessions.create', {}, PANEL);
      const shared = await call(first.api, 'sessions.addFolder', { sessionId: made.id, folder: { hostPath: share } }, PANEL);
      // A new set of folders is a new container: the record kept must name that one.
      expect(shared.containerId).not.toBe(made.containerId);
      await call(first.api, 'sessions.setKept', { sessionId: made.id, keep: true }, PANEL);
      await first.dispose();
      first = undefined;
      expect(await containerState(shared.containerId)).toBe('stopped');

      second = await startCore(home);
      const listed = second.sessions.list().find((s) => s.id === made.id);
      expect(listed?.state).toBe('paused');
      expect(listed?.folders.map((f) => [f.mountPath, f.mode])).toEqual([['/workspace/shared/' + share.split('/').pop(), 'ro']]);
      const r = await run(second, made.id, `print(open('${listed!.folders[0]!.mountPath}/data.txt').read())`);
      expect(r.stdout).toBe('from the host\n');
      expect(r.message).toBe(RESUMED_NOTICE);
      await call(second.api, 'sessions.stop', { sessionId: made.id }, PANEL);
    } finally {
      await first?.dispose();
      await second?.dispose();
      await rm(home, { recursive: true, force: true });
      await rm(share, { recursive: true, force: true });
    }
  });
});
