// Shared folders on the real engine, attacked from inside the sandbox: read-only holds, a read-write
// write reaches the host, links planted in the folder (relative and absolute) reach nothing outside it
// through code or through Sandpit's own file operations, setuid files and device nodes gain nothing,
// refused places are refused with their reason, an assistant cannot add a folder but sees it, the audit
// row names the folders and their mode, and the rw approval option asks before code runs.
import { chmod, chown, copyFile, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/domain/session';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { createMcpServer } from '../mcp/create-mcp-server';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';

const PANEL: CallContext = { transport: 'ipc', client: 'panel' };
const ASSISTANT: CallContext = { transport: 'mcp-stdio', client: 'folders-test', principal: 'p-folders' };
const SECRET = 'host-secret-6f1c';

async function refused(promise: Promise<unknown>): Promise<{ code: string; message: string; details?: { reason?: string } }> {
  return promise.then(
    () => {
      throw new Error('the call was not refused');
    },
    (e: unknown) => e as { code: string; message: string; details?: { reason?: string } },
  );
}

describe('shared folders', () => {
  let sp: TestSandpit;
  let root: string;
  let share: string;
  let writable: string;
  let session: SessionInfo;
  let client: Client;
  let mknodWorked = true;

  beforeAll(async () => {
    sp = await startTestSandpit();
    root = await mkdtemp(join(tmpdir(), 'sandpit-shares-'));
    share = join(root, 'share');
    writable = join(root, 'rw-share');
    await mkdir(join(root, 'outside'), { recursive: true });
    await writeFile(join(root, 'outside', 'secret.txt'), SECRET);
    await mkdir(share);
    await writeFile(join(share, 'hello.txt'), 'hello from the host');
    await symlink('../outside/secret.txt', join(share, 'rel-out'));
    await symlink(join(root, 'outside', 'secret.txt'), join(share, 'abs-out'));
    await symlink('../outside', join(share, 'dir-out'));
    // A setuid-root program and a block device, planted on the host side.
    await copyFile('/usr/bin/id', join(share, 'id-suid'));
    await chmod(join(share, 'id-suid'), 0o4755);
    try {
      execFileSync('mknod', ['-m', '666', join(share, 'blk'), 'b', '7', '0']);
    } catch {
      mknodWorked = false;
    }
    await chmod(root, 0o755);
    // Writable for everyone on the host: only the read-only mount can stop a write from inside.
    await chmod(share, 0o777);
    await chmod(join(share, 'hello.txt'), 0o666);
    // The person's own group may write: Sandpit adds it to the sandbox user.
    await mkdir(writable);
    await chown(writable, 0, 4242);
    await chmod(writable, 0o2775);

    session = await call(sp.api, 'sessions.create', {}, PANEL);
    const mcp = createMcpServer({ sandpit: sp, context: () => ASSISTANT });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await mcp.server.connect(b);
    client = new Client({ name: 'folders-test', version: '1' });
    await client.connect(a);
  });
  afterAll(async () => {
    await client?.close();
    await sp?.cleanup();
    if (root) await rm(root, { recursive: true, force: true });
  });

  const run = async (code: string, context: CallContext = PANEL): Promise<{ status: string; stdout: string; stderr: string }> =>
    call(sp.api, 'sessions.execute', { sessionId: session.id, code }, context);

  it('shares a folder read-only at /workspace/shared/<name>, restarting the sandbox and keeping /workspace', async () => {
    await call(sp.api, 'files.write', { sessionId: session.id, path: 'kept.txt', content: 'still here' }, PANEL);
    const before = session.containerId;
    session = await call(sp.api, 'sessions.addFolder', { sessionId: session.id, folder: { hostPath: share } }, PANEL);
    expect(session.folders).toEqual([{ name: 'share', hostPath: share, mountPath: '/workspace/shared/share', mode: 'ro' }]);
    expect(session.state).toBe('ready');
    expect(session.containerId).not.toBe(before);
    const read = await run("print(open('/workspace/shared/share/hello.txt').read()); print(open('/workspace/kept.txt').read())");
    expect(read.stdout).toBe('hello from the host\nstill here\n');
  });

  it('keeps it read-only from inside: EROFS on a write from code and from run_command', async () => {
    const write = await run("import errno\ntry:\n    open('/workspace/shared/share/new.txt', 'w')\nexcept OSError as e:\n    print(errno.errorcode[e.errno])");
    expect(write.stdout.trim()).toBe('EROFS');
    for (const target of ['hello.txt', 'new-from-command.txt']) {
      const touch = await call(sp.api, 'sessions.runCommand', { sessionId: session.id, command: `touch /workspace/shared/share/${target}` }, PANEL);
      expect(touch.exitCode).not.toBe(0);
      expect(touch.stderr).toMatch(/Read-only file system/);
    }
    const edit = await run("try:\n    open('/workspace/shared/share/hello.txt', 'a').write('x')\nexcept OSError as e:\n    print(e.strerror)");
    expect(edit.stdout.trim()).toBe('Read-only file system');
    expect(await readFile(join(share, 'hello.txt'), 'utf8')).toBe('hello from the host');
    await expect(stat(join(share, 'new.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('mounts only the folder, without nested links reaching out: relative and absolute links resolve inside the sandbox', async () => {
    const probe = await run(
      [
        'import os',
        "for name in ['rel-out', 'abs-out', 'dir-out/secret.txt']:",
        '    try:',
        "        print(name, open('/workspace/shared/share/' + name).read())",
        '    except OSError as e:',
        "        print(name, type(e).__name__)",
        "print('listing', sorted(os.listdir('/workspace/shared')))",
      ].join('\n'),
    );
    expect(probe.stdout).not.toContain(SECRET);
    expect(probe.stdout).toContain('rel-out FileNotFoundError');
    expect(probe.stdout).toContain('abs-out FileNotFoundError');
    expect(probe.stdout).toContain('dir-out/secret.txt FileNotFoundError');
    const command = await call(sp.api, 'sessions.runCommand', { sessionId: session.id, command: 'cat /workspace/shared/share/rel-out /workspace/shared/share/abs-out; ls /workspace/shared/share/dir-out/' }, PANEL);
    expect(command.stdout + command.stderr).not.toContain(SECRET);
  });

  it.each(['shared/share/rel-out', 'shared/share/abs-out', 'shared/share/dir-out/secret.txt'])('read_file %s is refused as a link, never read on the host', async (path) => {
    for (const context of [PANEL, ASSISTANT]) {
      const error = await refused(call(sp.api, 'files.read', { sessionId: session.id, path }, context));
      expect(error.message).toMatch(/link/i);
      expect(error.message).not.toContain(SECRET);
    }
  });

  it('list_files shows the links as links (and the folder to an assistant), never what they point at', async () => {
    const { entries } = await call(sp.api, 'files.list', { sessionId: session.id, path: 'shared/share' }, ASSISTANT);
    const byName = Object.fromEntries(entries.map((e) => [e.path, e.type]));
    expect(byName).toMatchObject({ 'shared/share/hello.txt': 'file', 'shared/share/rel-out': 'symlink', 'shared/share/abs-out': 'symlink', 'shared/share/dir-out': 'symlink' });
    const error = await refused(call(sp.api, 'files.list', { sessionId: session.id, path: 'shared/share/dir-out' }, ASSISTANT));
    expect(error.message).toMatch(/link/i);
    const top = await call(sp.api, 'files.list', { sessionId: session.id, path: 'shared' }, ASSISTANT);
    expect(top.entries.map((e) => e.path)).toContain('shared/share');
  });

  it('gives a setuid file no rights, and a planted device node stays closed', async () => {
    const id = await call(sp.api, 'sessions.runCommand', { sessionId: session.id, command: '/workspace/shared/share/id-suid -u' }, PANEL);
    expect(id.stdout.trim()).toBe('10001');
    if (!mknodWorked) {
      // Stated, not silent: this machine's own container may not create device nodes.
      console.warn('mknod is not allowed on this machine: the device-node attack was not planted');
      return;
    }
    const dev = await run("try:\n    open('/workspace/shared/share/blk', 'rb').read(1)\n    print('opened')\nexcept OSError as e:\n    print(type(e).__name__)");
    expect(dev.stdout.trim()).toBe('PermissionError');
  });

  it('shares a read-write folder: a write from inside appears on the host', async () => {
    session = await call(sp.api, 'sessions.addFolder', { sessionId: session.id, folder: { hostPath: writable, mode: 'rw', mountPath: '/workspace/out' } }, PANEL);
    expect(session.folders.map((f) => [f.mountPath, f.mode])).toEqual([
      ['/workspace/shared/share', 'ro'],
      ['/workspace/out', 'rw'],
    ]);
    const wrote = await run("open('/workspace/out/result.txt', 'w').write('made in the sandbox')");
    expect(wrote.status).toBe('ok');
    expect(await readFile(join(writable, 'result.txt'), 'utf8')).toBe('made in the sandbox');
    // The folder's setgid bit keeps the person's group on what the sandbox makes.
    expect((await stat(join(writable, 'result.txt'))).gid).toBe(4242);
  });

  it.each<[string, () => string, string]>([
    ['the filesystem root', () => '/', 'root'],
    ['/etc', () => '/etc', 'system'],
    ['/proc', () => '/proc', 'system'],
    ['the folder of the Docker socket', () => '/var/run', 'system'],
    ["Sandpit's data folder", () => sp.config.home, 'sandpit-data'],
    ["a folder holding Sandpit's data folder", () => join(sp.config.home, '..'), 'sandpit-data'],
    ['a link to /etc', () => join(root, 'share', 'etc-link'), 'system'],
  ])('refuses %s through the API, with the reason, and the session keeps its container', async (_what, path, reason) => {
    if (path().endsWith('etc-link')) await symlink('/etc', path()).catch(() => undefined);
    const before = (await call(sp.api, 'sessions.get', { sessionId: session.id }, PANEL)).containerId;
    const error = await refused(call(sp.api, 'sessions.addFolder', { sessionId: session.id, folder: { hostPath: path() } }, PANEL));
    expect(error.code).toBe('DENIED');
    expect(error.details?.reason).toBe(reason);
    expect((await call(sp.api, 'sessions.get', { sessionId: session.id }, PANEL)).containerId).toBe(before);
  });

  it('refuses an assistant that tries to add or remove a folder, and shows it the folders in list_sessions', async () => {
    const add = await refused(call(sp.api, 'sessions.addFolder', { sessionId: session.id, folder: { hostPath: root } }, ASSISTANT));
    expect(add.code).toBe('DENIED');
    const remove = await refused(call(sp.api, 'sessions.removeFolder', { sessionId: session.id, mountPath: '/workspace/out' }, ASSISTANT));
    expect(remove.code).toBe('DENIED');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).filter((n) => /folder|share|mount/i.test(n))).toEqual([]);
    const listed = await client.callTool({ name: 'list_sessions', arguments: {} });
    const mine = (listed.structuredContent as { sessions: Array<{ session_id: string; shared_folders: unknown }> }).sessions.find((s) => s.session_id === session.id);
    expect(mine?.shared_folders).toEqual([
      { path: '/workspace/shared/share', name: 'share', mode: 'ro' },
      { path: '/workspace/out', name: 'rw-share', mode: 'rw' },
    ]);
    const text = (listed.content as Array<{ text: string }>)[0]?.text ?? '';
    expect(text).toContain('/workspace/out (read-write');
  });

  it('names the folders and their mode in the audit row of a run, and the chain holds', async () => {
    const result = (await call(sp.api, 'sessions.execute', { sessionId: session.id, code: '1 + 1' }, ASSISTANT)) as { auditId?: number };
    const row = await call(sp.api, 'audit.get', { id: result.auditId! }, PANEL);
    expect(row.folders).toEqual([
      { name: 'share', hostPath: share, mountPath: '/workspace/shared/share', mode: 'ro' },
      { name: 'rw-share', hostPath: writable, mountPath: '/workspace/out', mode: 'rw' },
    ]);
    expect((await call(sp.api, 'audit.verify', {}, PANEL)).ok).toBe(true);
  });

  it('asks before an assistant runs code in a session with a read-write folder, when the setting says so', async () => {
    await call(sp.api, 'settings.update', { patch: { approvals: { askWritableFolders: true } } }, PANEL);
    try {
      const asked = new Promise<{ id: string; detail: string }>((resolve) => {
        const stop = sp.bus.on('approval.requested', (a) => {
          stop();
          resolve(a);
        });
      });
      const runCall = refused(call(sp.api, 'sessions.execute', { sessionId: session.id, code: 'print(1)' }, ASSISTANT));
      const approval = await asked;
      expect(approval.detail).toContain(`can change ${writable}`);
      await call(sp.api, 'approvals.respond', { id: approval.id, decision: 'deny' }, PANEL);
      expect((await runCall).code).toBe('DENIED');
    } finally {
      await call(sp.api, 'settings.update', { patch: { approvals: { askWritableFolders: false } } }, PANEL);
    }
    // Off again: runs freely (the default policy is free).
    expect((await run('print(2)', ASSISTANT)).stdout).toBe('2\n');
  });

  it('goes back to its previous folders when the new container cannot start, and says why', async () => {
    // A file where the folder would appear: the engine cannot mount a folder onto it.
    await call(sp.api, 'files.write', { sessionId: session.id, path: 'blocker', content: 'a file' }, PANEL);
    const other = await mkdtemp(join(tmpdir(), 'sandpit-shares-blocked-'));
    await chmod(other, 0o755);
    try {
      const error = await refused(call(sp.api, 'sessions.addFolder', { sessionId: session.id, folder: { hostPath: other, mountPath: '/workspace/blocker' } }, PANEL));
      expect(error.message).toMatch(/not a directory|mount/i);
      const info = await call(sp.api, 'sessions.get', { sessionId: session.id }, PANEL);
      expect(info.state).toBe('ready');
      expect(info.folders.map((f) => f.mountPath)).toEqual(['/workspace/shared/share', '/workspace/out']);
      expect((await run("print(open('/workspace/shared/share/hello.txt').read())")).stdout).toBe('hello from the host\n');
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it("leaves shared folders out of a snapshot, and a fork of the session gets none of them", async () => {
    const snapshot = await call(sp.api, 'snapshots.create', { sessionId: session.id }, PANEL);
    const paths = (await call(sp.api, 'snapshots.list', {}, PANEL)).snapshots.find((s) => s.id === snapshot.id);
    expect(paths).toBeDefined();
    expect(snapshot.sharedFoldersLeftOut).toEqual(expect.arrayContaining(['/workspace/shared/share']));
    const forked = await call(sp.api, 'sessions.fork', { sessionId: session.id }, PANEL);
    try {
      expect(forked.session.folders).toEqual([]);
      const seen = await call(sp.api, 'sessions.execute', { sessionId: forked.session.id, code: "import os\nprint(open('/workspace/kept.txt').read(), os.path.exists('/workspace/shared/share/hello.txt'))" }, PANEL);
      // The session's own file came along; the person's file did not.
      expect(seen.stdout).toBe('still here False\n');
    } finally {
      await call(sp.api, 'sessions.stop', { sessionId: forked.session.id }, PANEL);
      await call(sp.api, 'snapshots.delete', { snapshotId: snapshot.id }, PANEL);
    }
  });

  it('stops sharing a folder: it is gone from the sandbox, /workspace stays', async () => {
    session = await call(sp.api, 'sessions.removeFolder', { sessionId: session.id, mountPath: '/workspace/out' }, PANEL);
    expect(session.folders.map((f) => f.mountPath)).toEqual(['/workspace/shared/share']);
    const after = await run("import os\nprint(os.path.ismount('/workspace/out'), open('/workspace/kept.txt').read())");
    expect(after.stdout).toBe('False still here\n');
  });
});

describe('shared folders under gVisor (strong isolation)', () => {
  let sp: TestSandpit;
  let root: string;

  beforeAll(async () => {
    sp = await startTestSandpit({ defaultIsolation: 'strong' });
    root = await mkdtemp(join(tmpdir(), 'sandpit-shares-gvisor-'));
    await mkdir(join(root, 'ro'));
    await mkdir(join(root, 'outside'));
    await writeFile(join(root, 'outside', 'secret.txt'), SECRET);
    await writeFile(join(root, 'ro', 'hello.txt'), 'hello under gVisor');
    await symlink(join(root, 'outside', 'secret.txt'), join(root, 'ro', 'abs-out'));
    await chmod(root, 0o755);
    await chmod(join(root, 'ro'), 0o777);
    await mkdir(join(root, 'rw'));
    await chown(join(root, 'rw'), 0, 4242);
    await chmod(join(root, 'rw'), 0o2775);
  });
  afterAll(async () => {
    await sp?.cleanup();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('reads a read-only folder, cannot write it, links stay inside; a read-write write reaches the host', async () => {
    let info = await call(sp.api, 'sessions.create', {}, PANEL);
    expect(info.isolation).toBe('strong');
    info = await call(sp.api, 'sessions.addFolder', { sessionId: info.id, folder: { hostPath: join(root, 'ro') } }, PANEL);
    info = await call(sp.api, 'sessions.addFolder', { sessionId: info.id, folder: { hostPath: join(root, 'rw'), mode: 'rw' } }, PANEL);
    const probe = await call(
      sp.api,
      'sessions.execute',
      {
        sessionId: info.id,
        code: [
          "print(open('/workspace/shared/ro/hello.txt').read())",
          "for name in ['new.txt', 'abs-out']:",
          '    try:',
          "        print(open('/workspace/shared/ro/' + name, 'w' if name == 'new.txt' else 'r').read())",
          '    except OSError as e:',
          "        print(name, e.strerror)",
          "open('/workspace/shared/rw/made.txt', 'w').write('from gVisor')",
        ].join('\n'),
      },
      PANEL,
    );
    expect(probe.stdout).toContain('hello under gVisor');
    expect(probe.stdout).toContain('new.txt Read-only file system');
    expect(probe.stdout).not.toContain(SECRET);
    expect(await readFile(join(root, 'rw', 'made.txt'), 'utf8')).toBe('from gVisor');
  });
});

describe('folders of an environment', () => {
  let sp: TestSandpit;
  let root: string;

  beforeAll(async () => {
    // A warm pool is on: a session with folders still gets a container made for it.
    sp = await startTestSandpit({ poolSize: 1 });
    root = await mkdtemp(join(tmpdir(), 'sandpit-shares-env-'));
    await mkdir(join(root, 'data'));
    await writeFile(join(root, 'data', 'rows.csv'), 'a,b\n1,2\n');
    await chmod(root, 0o755);
    await chmod(join(root, 'data'), 0o755);
    await chmod(join(root, 'data', 'rows.csv'), 0o644);
  });
  afterAll(async () => {
    await sp?.cleanup();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('refuses a refused place when the environment is saved', async () => {
    const error = await refused(call(sp.api, 'environments.create', { name: 'Bad folders', language: 'python', folders: [{ hostPath: '/etc' }] }, PANEL));
    expect(error).toMatchObject({ code: 'DENIED', details: { reason: 'system' } });
  });

  it('gives every session of the environment its folders, in a container made for it (never a warm one)', async () => {
    const env = await call(sp.api, 'environments.create', { name: 'With data', language: 'python', folders: [{ hostPath: join(root, 'data'), mode: 'ro' }] }, PANEL);
    expect(env.folders).toEqual([{ hostPath: join(root, 'data'), mode: 'ro' }]);
    const info = await call(sp.api, 'sessions.create', { environment: 'With data' }, ASSISTANT);
    expect(info.fromPool).toBe(false);
    expect(info.folders).toEqual([{ name: 'data', hostPath: join(root, 'data'), mountPath: '/workspace/shared/data', mode: 'ro' }]);
    const read = await call(sp.api, 'sessions.execute', { sessionId: info.id, code: "print(open('/workspace/shared/data/rows.csv').read().splitlines()[1])" }, ASSISTANT);
    expect(read.stdout).toBe('1,2\n');
    // The assistant still cannot change the environment's folders.
    const edit = await refused(call(sp.api, 'environments.update', { environmentId: env.id, patch: { folders: [{ hostPath: root, mode: 'rw' }] } }, ASSISTANT));
    expect(edit.code).toBe('DENIED');
  });

  it('checks the folders again when a session starts: a folder that is gone starts nothing', async () => {
    await mkdir(join(root, 'gone'));
    await chmod(join(root, 'gone'), 0o755);
    await call(sp.api, 'environments.create', { name: 'Going', language: 'python', folders: [{ hostPath: join(root, 'gone') }] }, PANEL);
    await rm(join(root, 'gone'), { recursive: true });
    const before = (await call(sp.api, 'sessions.list', {}, PANEL)).sessions.length;
    const error = await refused(call(sp.api, 'sessions.create', { environment: 'Going' }, ASSISTANT));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toMatch(/There is no folder at .*gone/);
    // Refused before the manager was asked: no session (and so no container of one) was made.
    expect((await call(sp.api, 'sessions.list', {}, PANEL)).sessions.length).toBe(before);
  });
});
