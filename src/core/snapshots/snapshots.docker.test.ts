import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { MethodInput, MethodOutput } from '../../shared/api/contract';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { startPackageIndex } from '../../test-support/package-index';
import type { PackageIndex } from '../../test-support/package-index';
import { testDocker } from '../../test-support/docker';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

const PANEL: CallContext = { transport: 'internal' };
const ASSISTANT: CallContext = { transport: 'mcp-stdio', client: 'assistant-a', principal: 'principal-a' };

/** Every blob file under the store's objects folder, with its size. */
async function blobs(home: string): Promise<Map<string, number>> {
  const root = join(home, 'snapshots', 'objects');
  const found = new Map<string, number>();
  for (const prefix of await readdir(root).catch(() => [] as string[])) {
    for (const name of await readdir(join(root, prefix))) found.set(name, (await stat(join(root, prefix, name))).size);
  }
  return found;
}

/**
 * Snapshots, restores and forks on the real engine: files and packages (from a local index on an
 * internal network, never the internet) come back in a new session; the runs replay through sessions.execute.
 */
describe('snapshots and forks', () => {
  let index: PackageIndex | undefined;
  let sp: TestSandpit | undefined;
  const api = <M extends Parameters<typeof call>[1]>(method: M, input: MethodInput<M>, context: CallContext = PANEL): Promise<MethodOutput<M>> =>
    call(sp!.api, method, input, context);
  const run = async (sessionId: string, code: string, context: CallContext = PANEL): Promise<string | undefined> => {
    const r = await api('sessions.execute', { sessionId, code }, context);
    expect(r.error, r.error?.traceback).toBeUndefined();
    expect(r.status).toBe('ok');
    return r.result;
  };
  const read = async (sessionId: string, path: string): Promise<string> => (await api('files.read', { sessionId, path })).content;

  beforeAll(async () => {
    const image = inject('images').python;
    if (!image) throw new Error('The python executor image was not built by the docker globalSetup.');
    index = await startPackageIndex(testDocker(), { image });
    sp = await startTestSandpit({ pipIndexUrl: index.url, installNetwork: index.network });
  });
  afterAll(async () => {
    await sp?.cleanup();
    await index?.stop();
  });

  it('restores the files and a package installed before, with the same image, limits and isolation, without the network', async () => {
    const source = await newSession(sp!, { limits: { memoryMb: 384 } });
    const { results } = await api('packages.install', { sessionId: source.id, packages: ['sandpit_demo_b'] });
    expect(results).toEqual([{ package: 'sandpit_demo_b', ok: true, version: '2.1.0' }]);
    await api('files.write', { sessionId: source.id, path: 'data/notes.txt', content: 'kept words\n' });
    await run(source.id, "open('made-by-code.csv', 'w').write('a,b\\n1,2\\n')");

    const snapshot = await api('snapshots.create', { sessionId: source.id, name: 'with demo b' });
    expect(snapshot).toMatchObject({ name: 'with demo b', files: 2, packages: ['sandpit_demo_b'], runs: 1, shared: true, sessionId: source.id });
    expect(snapshot.packageBytes).toBeGreaterThan(0);
    expect((await api('snapshots.list', {})).snapshots.map((s) => s.id)).toContain(snapshot.id);

    // The source is gone before the restore: nothing is copied from it, only from the snapshot.
    await api('sessions.stop', { sessionId: source.id });
    const restored = await api('snapshots.restore', { snapshot: 'with demo b' });
    const info = restored.session;
    expect(info.id).not.toBe(source.id);
    expect(info).toMatchObject({ image: source.image, limits: source.limits, isolation: source.isolation, network: 'none', packages: ['sandpit_demo_b'] });
    expect(restored.files).toBe(2);
    expect(await read(info.id, 'data/notes.txt')).toBe('kept words\n');
    expect(await read(info.id, 'made-by-code.csv')).toBe('a,b\n1,2\n');
    // The package and its dependency import in the new session, which has no network at all.
    expect(await run(info.id, 'import sandpit_demo_b, sandpit_demo_a\n(sandpit_demo_b.answer(), sandpit_demo_a.VALUE)')).toBe('(84, 42)');
    expect(await run(info.id, "import socket\nsorted(n for _, n in socket.if_nameindex())")).toBe("['lo']");
    await api('sessions.stop', { sessionId: info.id });
  });

  it('forks a session into two that diverge: each sees only its own files and variables', async () => {
    const a = await newSession(sp!, {});
    await run(a.id, "shared = 'before'\nopen('common.txt', 'w').write('common')");
    const fork = await api('sessions.fork', { sessionId: a.id, replay: true });
    const b = fork.session;
    expect(fork.replay).toMatchObject({ total: 1, ran: 1, complete: true });

    await run(a.id, "approach = 'A'\nopen('only-a.txt', 'w').write('A')");
    await run(b.id, "approach = 'B'\nopen('only-b.txt', 'w').write('B')");

    expect(await run(a.id, '(shared, approach)')).toBe("('before', 'A')");
    expect(await run(b.id, '(shared, approach)')).toBe("('before', 'B')");
    const names = async (id: string): Promise<string[]> => (await api('files.list', { sessionId: id })).entries.map((e) => e.path).sort();
    expect(await names(a.id)).toEqual(['common.txt', 'only-a.txt']);
    expect(await names(b.id)).toEqual(['common.txt', 'only-b.txt']);
    await api('sessions.stop', { sessionId: a.id });
    await api('sessions.stop', { sessionId: b.id });
  });

  it('a fork writes the files into its new session as the snapshot takes them; refused part way, it leaves no session and no snapshot, and says why', async () => {
    const a = await newSession(sp!, {});
    await run(a.id, "import os\nfor i in range(300):\n  os.makedirs(f'd{i % 7}', exist_ok=True)\n  open(f'd{i % 7}/f{i}.txt', 'w').write(str(i) * 50)");
    const whole = await api('sessions.fork', { sessionId: a.id });
    expect(whole.files).toBe(300);
    expect(await run(whole.session.id, "import os\nsum(len(fs) for _, _, fs in os.walk('.'))")).toBe('300');
    expect(await run(whole.session.id, "open('d3/f10.txt').read()")).toBe(`'${'10'.repeat(50)}'`);
    await api('sessions.stop', { sessionId: whole.session.id });

    // a file over what a snapshot takes (100 MiB; sparse, so it costs no disk), beside the 300 the fork is writing
    await run(a.id, "with open('z-too-big.bin', 'wb') as f:\n  f.truncate(101 * 1024 * 1024)");
    const live = async (): Promise<string[]> => (await api('sessions.list', {})).sessions.filter((s) => s.state !== 'stopped').map((s) => s.id).sort();
    const sessionsBefore = await live();
    const snapshotsBefore = (await api('snapshots.list', {})).snapshots.map((s) => s.id).sort();
    const refused = await api('sessions.fork', { sessionId: a.id }).then(
      () => undefined,
      (error: unknown) => error as { code?: string; message?: string },
    );
    expect(refused?.code).toBe('LIMIT_EXCEEDED');
    expect(refused?.message).toContain('/workspace/z-too-big.bin is 105906176 bytes');
    expect(await live()).toEqual(sessionsBefore);
    expect((await api('snapshots.list', {})).snapshots.map((s) => s.id).sort()).toEqual(snapshotsBefore);
    expect(await run(a.id, "len(open('d6/f20.txt').read())")).toBe('100');
    await api('sessions.stop', { sessionId: a.id });
  });

  it('replays the recorded runs in order to rebuild the variables (only the successful ones)', async () => {
    const s = await newSession(sp!, {});
    await run(s.id, 'total = 1');
    const failed = await api('sessions.execute', { sessionId: s.id, code: 'raise ValueError("not recorded")' });
    expect(failed.status).toBe('error');
    await run(s.id, 'total = total * 10');
    await run(s.id, 'def grow(n):\n    return total + n');
    const snapshot = await api('snapshots.create', { sessionId: s.id });
    expect(snapshot.runs).toBe(3);

    const without = await api('snapshots.restore', { snapshot: snapshot.id });
    expect(without.replay).toBeUndefined();
    const missing = await api('sessions.execute', { sessionId: without.session.id, code: 'total' });
    expect(missing.error?.name).toBe('NameError');

    const rebuilt = await api('snapshots.restore', { snapshot: snapshot.id, replay: true });
    expect(rebuilt.replay).toEqual({ total: 3, ran: 3, complete: true, message: 'All 3 recorded runs ran again.' });
    expect(await run(rebuilt.session.id, 'grow(5)')).toBe('15');
    for (const id of [s.id, without.session.id, rebuilt.session.id]) await api('sessions.stop', { sessionId: id });
  });

  it('forks a JavaScript session and replays its runs in its own language', async () => {
    const js = await newSession(sp!, { language: 'javascript' });
    await run(js.id, "const fs = require('fs'); let items = ['a']; fs.writeFileSync('items.json', JSON.stringify(items));");
    await run(js.id, "items.push('b'); items.length");
    const fork = await api('sessions.fork', { sessionId: js.id, replay: true });
    expect(fork.session.language).toBe('javascript');
    expect(fork.replay).toMatchObject({ total: 2, ran: 2, complete: true });
    expect(await run(fork.session.id, 'items.join(",")')).toBe("'a,b'");
    expect(await read(fork.session.id, 'items.json')).toBe('["a"]');
    for (const id of [js.id, fork.session.id]) await api('sessions.stop', { sessionId: id });
  });

  it('stops a replay at the first run that fails and says which, with its error', async () => {
    const s = await newSession(sp!, {});
    await run(s.id, 'a = 1');
    await api('files.write', { sessionId: s.id, path: 'gone.txt', content: 'soon deleted' });
    await run(s.id, "text = open('gone.txt').read()");
    await run(s.id, "import os\nos.remove('gone.txt')");
    await run(s.id, 'b = 2');
    const snapshot = await api('snapshots.create', { sessionId: s.id });

    const restored = await api('snapshots.restore', { snapshot: snapshot.id, replay: true });
    const replay = restored.replay!;
    expect(replay).toMatchObject({ total: 4, ran: 1, complete: false, failed: { index: 2, code: "text = open('gone.txt').read()", status: 'error' } });
    expect(replay.failed?.error).toMatch(/^FileNotFoundError: .*gone\.txt/);
    expect(replay.message).toMatch(/^Run 2 of 4 failed \(FileNotFoundError: .*\); the replay stopped there, so runs 3 to 4 did not run\.$/);
    // Run 1 ran, nothing after run 2 did.
    expect(await run(restored.session.id, 'a')).toBe('1');
    expect((await api('sessions.execute', { sessionId: restored.session.id, code: 'b' })).error?.name).toBe('NameError');
    // The replayed runs are audited like any other run (the failing one too).
    const rows = (await api('audit.list', { filters: { sessionId: restored.session.id } })).rows;
    expect(rows.map((r) => [r.code, r.status]).reverse().slice(0, 2)).toEqual([
      ['a = 1', 'ok'],
      ["text = open('gone.txt').read()", 'error'],
    ]);
    for (const id of [s.id, restored.session.id]) await api('sessions.stop', { sessionId: id });
  });

  it('stores unchanged files once: a second snapshot of the same workspace adds almost nothing', async () => {
    const s = await newSession(sp!, {});
    await run(s.id, "import os\nopen('big.bin', 'wb').write(os.urandom(2 * 1024 * 1024))\nopen('small.txt', 'w').write('x')");
    const first = await api('snapshots.create', { sessionId: s.id });
    expect(first.addedBytes).toBeGreaterThanOrEqual(2 * 1024 * 1024);
    const before = [...(await blobs(sp!.config.home)).values()].reduce((a, b) => a + b, 0);
    const second = await api('snapshots.create', { sessionId: s.id });
    const after = [...(await blobs(sp!.config.home)).values()].reduce((a, b) => a + b, 0);
    expect(second.sizeBytes).toBe(first.sizeBytes);
    expect(second.addedBytes).toBe(0);
    expect(after).toBe(before);
    await api('sessions.stop', { sessionId: s.id });
  });

  it('leaves planted links out: nothing outside the workspace gets into the snapshot', async () => {
    const s = await newSession(sp!, {});
    await run(
      s.id,
      [
        'import os',
        "open('real.txt', 'w').write('mine')",
        "os.symlink('/etc/passwd', 'passwd')",
        "os.symlink('/', 'root')",
        "os.symlink('/opt/sandpit', 'sandpit-dir')",
        "os.makedirs('sub', exist_ok=True)",
        "os.symlink('../../../../etc/hostname', 'sub/up')",
        "os.mkfifo('pipe')",
      ].join('\n'),
    );
    const snapshot = await api('snapshots.create', { sessionId: s.id });
    expect(snapshot.files).toBe(1);
    expect([...snapshot.skipped].sort()).toEqual(['passwd', 'pipe', 'root', 'sandpit-dir', 'sub/up']);
    const etcPasswd = (await run(s.id, "open('/etc/passwd').read()"))!;
    expect(etcPasswd).toContain('root:x:0:0');
    // No stored blob holds what the links point at (the sandbox's /etc/passwd, the agent's folder).
    const root = join(sp!.config.home, 'snapshots', 'objects');
    for (const sha of (await blobs(sp!.config.home)).keys()) {
      const content = await readFile(join(root, sha.slice(0, 2), sha), 'utf8');
      expect(content).not.toContain('root:x:0:0');
    }
    const restored = await api('snapshots.restore', { snapshot: snapshot.id });
    // Only the regular file comes back (a folder that held nothing but a link is not made again).
    const entries = (await api('files.list', { sessionId: restored.session.id })).entries.map((e) => `${e.path}:${e.type}`).sort();
    expect(entries).toEqual(['real.txt:file']);
    expect(await read(restored.session.id, 'real.txt')).toBe('mine');
    for (const id of [s.id, restored.session.id]) await api('sessions.stop', { sessionId: id });
  });

  it('deletes a snapshot and the blobs no other snapshot uses', async () => {
    const s = await newSession(sp!, {});
    await run(s.id, "open('keep.txt', 'w').write('kept by both')");
    const a = await api('snapshots.create', { sessionId: s.id, name: 'a' });
    await run(s.id, "import os\nopen('extra.bin', 'wb').write(os.urandom(300_000))");
    const b = await api('snapshots.create', { sessionId: s.id, name: 'b' });
    const before = await blobs(sp!.config.home);
    const deleted = await api('snapshots.delete', { snapshotId: b.id });
    expect(deleted.deleted).toBe(true);
    expect(deleted.freedBytes).toBeGreaterThanOrEqual(300_000);
    const after = await blobs(sp!.config.home);
    expect(before.size - after.size).toBeGreaterThanOrEqual(1);
    // a still restores, with its file.
    const restored = await api('snapshots.restore', { snapshot: a.id });
    expect(await read(restored.session.id, 'keep.txt')).toBe('kept by both');
    expect((await api('snapshots.list', {})).snapshots.map((x) => x.id)).not.toContain(b.id);
    await expect(api('snapshots.restore', { snapshot: b.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    for (const id of [s.id, restored.session.id]) await api('sessions.stop', { sessionId: id });
  });

  it("keeps an assistant's snapshots its own: others cannot see them, and it cannot delete the panel's", async () => {
    const mine = await api('sessions.create', {}, ASSISTANT);
    await run(mine.id, 'x = 1', ASSISTANT);
    const snap = await api('snapshots.create', { sessionId: mine.id }, ASSISTANT);
    expect(snap.shared).toBe(false);
    const other: CallContext = { transport: 'mcp-stdio', client: 'assistant-b', principal: 'principal-b' };
    expect((await api('snapshots.list', {}, other)).snapshots.map((x) => x.id)).not.toContain(snap.id);
    await expect(api('snapshots.restore', { snapshot: snap.id }, other)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(api('snapshots.delete', { snapshotId: snap.id }, other)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(api('snapshots.create', { sessionId: mine.id }, other)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    const panelSession = await newSession(sp!, {});
    const panelSnap = await api('snapshots.create', { sessionId: panelSession.id });
    await expect(api('snapshots.delete', { snapshotId: panelSnap.id }, ASSISTANT)).rejects.toMatchObject({ code: 'DENIED' });
    expect((await api('snapshots.delete', { snapshotId: snap.id }, ASSISTANT)).deleted).toBe(true);
    for (const id of [mine.id, panelSession.id]) await api('sessions.stop', { sessionId: id });
  });
});

/** The same under gVisor: the fork keeps the isolation, and the package store's archive is read and unpacked there too. */
describe('snapshots and forks under strong isolation (gVisor)', () => {
  let index: PackageIndex | undefined;
  let sp: TestSandpit | undefined;

  beforeAll(async () => {
    const image = inject('images').python;
    if (!image) throw new Error('The python executor image was not built by the docker globalSetup.');
    index = await startPackageIndex(testDocker(), { image });
    sp = await startTestSandpit({ pipIndexUrl: index.url, installNetwork: index.network, defaultIsolation: 'strong' });
  });
  afterAll(async () => {
    await sp?.cleanup();
    await index?.stop();
  });

  it('forks a gVisor session with its files, packages and variables, still under gVisor', async () => {
    const source = await newSession(sp!, {});
    expect(source.isolation).toBe('strong');
    const { results } = await call(sp!.api, 'packages.install', { sessionId: source.id, packages: ['sandpit_demo_a'] }, PANEL);
    expect(results[0]?.ok, results[0]?.error).toBe(true);
    await call(sp!.api, 'files.write', { sessionId: source.id, path: 'in.txt', content: 'gvisor' }, PANEL);
    const setup = await call(sp!.api, 'sessions.execute', { sessionId: source.id, code: "import sandpit_demo_a\nword = open('in.txt').read()" }, PANEL);
    expect(setup.status).toBe('ok');

    const fork = await call(sp!.api, 'sessions.fork', { sessionId: source.id, replay: true }, PANEL);
    expect(fork.session.isolation).toBe('strong');
    expect(fork.replay).toMatchObject({ total: 1, ran: 1, complete: true });
    const check = await call(sp!.api, 'sessions.execute', { sessionId: fork.session.id, code: 'import platform\n(word, sandpit_demo_a.VALUE, platform.release())' }, PANEL);
    expect(check.result).toBe("('gvisor', 42, '4.4.0')");
    for (const id of [source.id, fork.session.id]) await call(sp!.api, 'sessions.stop', { sessionId: id }, PANEL);
  });
});
