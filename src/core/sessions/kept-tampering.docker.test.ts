// Files in the data folder are input (issue 20, finding 4): kept-session records, settings and environments
// edited while Sandpit is stopped are refused or ignored with a plain message in the log; what a record names
// that Sandpit did not make (a container without its labels, a file outside its workspaces folder) survives,
// and nothing starts with the host's network or a protected folder mounted. And a kept session's shared
// folder replaced by a link while Sandpit was stopped is not mounted when the session resumes (finding 3).
import { chmod, mkdir, mkdtemp, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SessionInfo } from '../../shared/domain/session';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { createSandpit } from '../app';
import type { Sandpit } from '../app';
import { defaultConfig } from '../config';
import { LABEL } from '../docker/labels';
import type { Logger } from '../log';
import { settingsPath } from '../settings/settings-file';
import { containerExists, testDocker } from '../../test-support/docker';
import { detachLoopsUnder } from '../../test-support/loop-devices';

const PANEL: CallContext = { transport: 'ipc', client: 'panel' };
const SECRET = 'protected-secret-9a71';

/** A logger that keeps its warnings, so the test reads what the person would read in the log. */
function keepingLogger(lines: string[]): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message, fields) => lines.push(`${message} ${JSON.stringify(fields ?? {})}`),
    error: (message, fields) => lines.push(`${message} ${JSON.stringify(fields ?? {})}`),
    child: () => logger,
  };
  return logger;
}

function startCore(home: string, lines: string[] = []): Promise<Sandpit> {
  const images = inject('images');
  if (!images.python) throw new Error('The python executor image was not built by the docker globalSetup.');
  return createSandpit(defaultConfig({ home, poolSize: 0, egressProxy: false, graceMs: 2_000, images: { ...images } }), { logger: keepingLogger(lines) });
}

async function editJson(path: string, change: (value: Record<string, unknown>) => void): Promise<void> {
  const value = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  change(value);
  await writeFile(path, JSON.stringify(value, null, 2));
}

describe('a data folder edited while Sandpit is stopped', () => {
  const docker = testDocker();
  let home: string;
  let root: string;
  let share: string;
  let secrets: string;
  let victim: string;
  let foreignId = '';
  /** A container carrying Sandpit's labels for a kept session, made by hand without a sandbox's protections. */
  let impostorId = '';
  /** Whether this engine's workspaces are disks of their own (the record then names one). */
  let hadDisk = false;
  let second: Sandpit | undefined;
  const lines: string[] = [];
  const made: Record<'linked' | 'foreign' | 'disk' | 'folder' | 'host' | 'image' | 'weak', SessionInfo> = {} as never;
  const envIds: Record<'host' | 'folder', string> = {} as never;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-tamper-'));
    root = await mkdtemp(join(tmpdir(), 'sandpit-tamper-files-'));
    share = join(root, 'share');
    secrets = join(root, 'aws');
    victim = join(root, 'victim.txt');
    await mkdir(share);
    await mkdir(secrets);
    await writeFile(join(share, 'data.txt'), 'shared data');
    await writeFile(join(secrets, 'credentials'), SECRET);
    await writeFile(victim, 'a file of this computer');
    for (const dir of [root, share, secrets]) await chmod(dir, 0o755);
    for (const file of [join(share, 'data.txt'), join(secrets, 'credentials')]) await chmod(file, 0o644);

    const first = await startCore(home);
    try {
      const current = (await call(first.api, 'settings.get', {}, PANEL)).protectedFolders;
      await call(first.api, 'settings.update', { patch: { protectedFolders: [...current, secrets] } }, PANEL);
      for (const key of ['linked', 'foreign', 'disk', 'folder', 'host', 'image', 'weak'] as const) {
        made[key] = await call(first.api, 'sessions.create', { keep: true, name: key }, PANEL);
      }
      made.linked = await call(first.api, 'sessions.addFolder', { sessionId: made.linked.id, folder: { hostPath: share } }, PANEL);
      expect((await call(first.api, 'sessions.execute', { sessionId: made.linked.id, code: "print(open('/workspace/shared/share/data.txt').read())" }, PANEL)).stdout).toBe('shared data\n');
      envIds.host = (await call(first.api, 'environments.create', { name: 'Quiet one', language: 'python' }, PANEL)).id;
      envIds.folder = (await call(first.api, 'environments.create', { name: 'With data', language: 'python', folders: [{ hostPath: share }] }, PANEL)).id;
    } finally {
      await first.dispose();
    }

    // A container Sandpit did not make: no Sandpit labels.
    foreignId = await docker.createContainer({ image: inject('images').python!, cmd: ['sleep', '600'], env: {}, labels: {}, user: '10001:10001', workingDir: '/', openStdin: false, hostConfig: { NetworkMode: 'none' } });
    const record = (id: string): string => join(home, 'kept-sessions', `${id}.json`);
    // One with Sandpit's labels for a kept session, its image, network and mounts, but privileged, with every
    // capability, no no-new-privileges, as root and with 8 GiB of memory: what someone with the engine's socket could plant.
    const [original] = await docker.listContainers({ [LABEL.session]: made.weak.id });
    const shape = await docker.inspectContainer(original!.id);
    impostorId = await docker.createContainer({
      image: inject('images').python!,
      cmd: ['sleep', '600'],
      env: {},
      labels: shape.labels,
      user: '0:0',
      workingDir: '/',
      openStdin: false,
      hostConfig: { NetworkMode: 'none', Privileged: true, Memory: 8 * 1024 * 1024 * 1024, Binds: (shape.binds ?? []).map((b) => `${b.source}:${b.target}:${b.readOnly ? 'ro' : 'rw'}`) },
    });
    await editJson(record(made.weak.id), (r) => {
      (r.sandbox as Record<string, unknown>).containerId = impostorId;
    });
    await editJson(record(made.foreign.id), (r) => {
      (r.sandbox as Record<string, unknown>).containerId = foreignId;
    });
    await editJson(record(made.disk.id), (r) => {
      hadDisk = (r.sandbox as Record<string, unknown>).workspace !== undefined;
      (r.sandbox as Record<string, unknown>).workspace = { image: victim, device: '/dev/loop0' };
    });
    await editJson(record(made.folder.id), (r) => {
      r.folders = [{ name: 'aws', hostPath: secrets, mountPath: '/workspace/shared/aws', mode: 'ro', groupId: 0 }];
    });
    await editJson(record(made.host.id), (r) => {
      r.networkPolicy = 'open';
      r.network = 'host';
    });
    await editJson(record(made.image.id), (r) => {
      r.image = 'busybox:latest';
    });
    // The kept session's folder is now a link to the protected folder.
    await rename(share, `${share}-old`);
    await symlink(secrets, share);
    // Settings and environments edited by hand.
    await editJson(settingsPath(home), (s) => {
      s.poolSize = -3;
    });
    await editJson(join(home, 'environments', `${envIds.host}.json`), (e) => {
      e.network = 'host';
    });
    await editJson(join(home, 'environments', `${envIds.folder}.json`), (e) => {
      e.folders = [{ hostPath: secrets, mode: 'ro' }];
    });

    second = await startCore(home, lines);
  });

  afterAll(async () => {
    await second?.dispose();
    for (const s of Object.values(made)) {
      for (const c of await docker.listContainers({ [LABEL.session]: s.id })) await docker.removeContainer(c.id).catch(() => undefined);
      for (const v of await docker.listVolumes({ [LABEL.session]: s.id })) await docker.removeVolume(v.name).catch(() => undefined);
    }
    if (foreignId) await docker.removeContainer(foreignId).catch(() => undefined);
    if (impostorId) await docker.removeContainer(impostorId).catch(() => undefined);
    // Kept sessions' disks stay attached while Sandpit is away (and those whose records were refused are not touched).
    await detachLoopsUnder(home);
    await rm(home, { recursive: true, force: true });
    await rm(root, { recursive: true, force: true });
  });

  it('a record naming a container Sandpit did not make is not taken over; that container survives', async () => {
    const sp = second!;
    expect(sp.sessions.list().map((s) => s.id)).not.toContain(made.foreign.id);
    expect(lines.join('\n')).toMatch(new RegExp(`${made.foreign.id}.*not one Sandpit made for that session|not one Sandpit made for that session.*${made.foreign.id}`));
    await expect(call(sp.api, 'sessions.stop', { sessionId: made.foreign.id }, PANEL)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(await containerExists(foreignId)).toBe(true);
  });

  it('a container with Sandpit\'s labels but without a sandbox\'s protections is not taken over, saying which; it is not touched', async () => {
    const sp = second!;
    expect(sp.sessions.list().map((s) => s.id)).not.toContain(made.weak.id);
    const said = lines.join('\n');
    expect(said).toMatch(new RegExp(`session ${made.weak.id} was not made with a sandbox's protections \\(it is privileged; `));
    expect(said).toContain('it runs as 0:0, not 10001:10001');
    expect(said).toContain('its memory limit is 8192 MiB, not 512 MiB');
    await expect(call(sp.api, 'sessions.stop', { sessionId: made.weak.id }, PANEL)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(await containerExists(impostorId)).toBe(true);
    expect((await docker.inspectContainer(impostorId)).running).toBe(false);
  });

  it('a record naming any file as its workspace disk is not used; the file survives', async () => {
    const sp = second!;
    const listed = sp.sessions.list().some((s) => s.id === made.disk.id);
    // A plain-volume workspace has no disk: its record's disk is never looked at, and stopping touches no file.
    if (listed) await call(sp.api, 'sessions.stop', { sessionId: made.disk.id }, PANEL);
    expect(await readFile(victim, 'utf8')).toBe('a file of this computer');
    if (hadDisk) {
      expect(listed).toBe(false);
      expect(lines.join('\n')).toContain(`not where Sandpit keeps that session's disk`);
    }
  });

  it('a protected folder added to a record is never mounted', async () => {
    const sp = second!;
    // Its container mounts no such folder, so the record does not describe it: not taken over.
    expect(sp.sessions.list().map((s) => s.id)).not.toContain(made.folder.id);
    expect(lines.join('\n')).toMatch(new RegExp(`${made.folder.id} mounts other folders of this computer than its record says`));
    for (const c of await docker.listContainers({ [LABEL.session]: made.folder.id })) {
      expect(((await docker.inspectContainer(c.id)).binds ?? []).map((b) => b.source)).not.toContain(secrets);
    }
  });

  it('a record naming another image than its container was made from is not taken over', async () => {
    const sp = second!;
    expect(sp.sessions.list().map((s) => s.id)).not.toContain(made.image.id);
    expect(lines.join('\n')).toMatch(new RegExp(`kept session ${made.image.id} was made from .* not from busybox:latest`));
  });

  it('a record asking for the host network is refused; nothing of it starts', async () => {
    const sp = second!;
    expect(sp.sessions.list().map((s) => s.id)).not.toContain(made.host.id);
    expect(lines.join('\n')).toMatch(/kept session record is refused.*network \\"host\\"/);
    for (const c of await docker.listContainers({ [LABEL.session]: made.host.id })) {
      expect((await docker.inspectContainer(c.id)).networkMode).not.toBe('host');
      expect((await docker.inspectContainer(c.id)).running).toBe(false);
    }
  });

  it('a kept folder replaced by a link while Sandpit was stopped is not mounted when the session resumes, and says why', async () => {
    const sp = second!;
    expect(sp.sessions.list().find((s) => s.id === made.linked.id)?.state).toBe('paused');
    expect(lines.join('\n')).toMatch(/shared folder is refused/);
    const r = await call(sp.api, 'sessions.execute', { sessionId: made.linked.id, code: "import os\nprint(os.listdir('/workspace/shared/share'))\nprint(open('/workspace/shared/share/credentials').read())" }, PANEL).then(
      (x) => `${x.stdout} ${x.message ?? ''}`,
      (e: unknown) => (e as Error).message,
    );
    expect(r).not.toContain(SECRET);
    expect(r).toMatch(/The shared folder .*share .*is not mounted/);
    // Stopping it removes its own container only.
    await call(sp.api, 'sessions.stop', { sessionId: made.linked.id }, PANEL);
    expect(await readFile(join(secrets, 'credentials'), 'utf8')).toBe(SECRET);
  });

  it('a setting edited to what Settings would refuse is ignored, saying so; environments likewise', async () => {
    const sp = second!;
    expect(lines.join('\n')).toMatch(/skipping a setting that is not valid.*poolSize/);
    expect((await call(sp.api, 'settings.get', {}, PANEL)).poolSize).toBeGreaterThanOrEqual(0);
    const environments = (await call(sp.api, 'environments.list', {}, PANEL)).environments.map((e) => e.id);
    expect(environments).not.toContain(envIds.host);
    expect(lines.join('\n')).toMatch(new RegExp(`skipped a corrupt environment file.*${envIds.host}`));
    const refused = await call(sp.api, 'sessions.create', { environment: 'With data' }, PANEL).then(
      () => 'started',
      (e: unknown) => (e as Error).message,
    );
    expect(refused).toMatch(/protected list/);
    expect(await readdir(join(home, 'environments'))).toContain(`${envIds.host}.json`);
  });
});
