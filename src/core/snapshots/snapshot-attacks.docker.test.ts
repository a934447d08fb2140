import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pack } from 'tar-stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { MethodInput, MethodOutput } from '../../shared/api/contract';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

const PANEL: CallContext = { transport: 'internal' };

/** Every blob of the store with the disk it takes (allocated blocks), and the manifests' names. */
async function storeOnDisk(home: string): Promise<{ blobs: Map<string, number>; manifests: string[] }> {
  const root = join(home, 'snapshots');
  const blobs = new Map<string, number>();
  for (const prefix of await readdir(join(root, 'objects')).catch(() => [] as string[])) {
    for (const name of await readdir(join(root, 'objects', prefix)))
      blobs.set(name, (await stat(join(root, 'objects', prefix, name))).blocks * 512);
  }
  const manifests = (await readdir(join(root, 'manifests')).catch(() => [] as string[])).sort();
  return { blobs, manifests };
}

/** A package archive as an attacker would plant it: a device node, a root setuid program, a link out, one honest file. */
async function evilArchive(): Promise<Buffer> {
  const out = pack();
  const chunks: Buffer[] = [];
  out.on('data', (c: unknown) => chunks.push(c as Buffer));
  const ended = new Promise<void>((resolve) => out.on('end', () => resolve()));
  const add = (header: Parameters<typeof out.entry>[0], body = ''): Promise<void> =>
    new Promise((resolve, reject) => out.entry(header, body, (e) => (e ? reject(e) : resolve())));
  await add({ name: 'evil/', type: 'directory', mode: 0o755 });
  await add({ name: 'evil/ok.py', type: 'file', mode: 0o644, uid: 10001, gid: 10001 }, 'VALUE = 7\n');
  await add({ name: 'evil/mem', type: 'character-device', devmajor: 1, devminor: 1, mode: 0o666, uid: 0, gid: 0 });
  await add({ name: 'evil/rootsh', type: 'file', mode: 0o4755, uid: 0, gid: 0 }, '#!/bin/sh\nid\n');
  await add({ name: 'evil/passwd', type: 'symlink', linkname: '/etc/passwd', mode: 0o777 });
  out.finalize();
  await ended;
  return Buffer.concat(chunks);
}

/**
 * Snapshots attacked from inside the sandbox and through the data folder: a sparse file cannot fill the
 * host's disk, the store's cap refuses in plain words and leaves nothing half-written, unreadable files and
 * odd names are left out and named instead of failing the snapshot, and a tampered package archive is
 * cleaned again when it is restored.
 */
describe('snapshots under attack', () => {
  const started: TestSandpit[] = [];
  const sandpit = async (home?: string): Promise<TestSandpit> => {
    const sp = await startTestSandpit(home === undefined ? {} : { home });
    started.push(sp);
    return sp;
  };
  afterAll(async () => {
    for (const sp of started.reverse()) await sp.cleanup().catch(() => undefined);
  });
  const api = <M extends Parameters<typeof call>[1]>(
    sp: TestSandpit,
    method: M,
    input: MethodInput<M>,
  ): Promise<MethodOutput<M>> => call(sp.api, method, input, PANEL);
  const refusal = (promise: Promise<unknown>): Promise<{ code: string; message: string }> =>
    promise.then(
      () => {
        throw new Error('not refused');
      },
      (e: unknown) => e as { code: string; message: string },
    );
  const sh = async (sp: TestSandpit, sessionId: string, command: string): Promise<string> => {
    const r = await api(sp, 'sessions.execute', {
      sessionId,
      code: `import subprocess\nprint(subprocess.run(${JSON.stringify(command)}, shell=True, capture_output=True, text=True).stdout, end='')`,
    });
    expect(r.error, r.error?.traceback).toBeUndefined();
    return r.stdout;
  };

  it('a 2 GiB sparse file is refused in plain words; a 90 MiB sparse one is stored in a few KiB', async () => {
    const sp = await sandpit();
    const { id } = await newSession(sp, { limits: { workspaceMb: 4096 } });
    await sh(sp, id, 'truncate -s 2G /workspace/big && echo small > /workspace/notes.txt');
    expect(await sh(sp, id, 'du -k /workspace/big | cut -f1')).toMatch(/^\d{1,3}\n$/); // takes (almost) nothing in the sandbox
    const big = await refusal(api(sp, 'snapshots.create', { sessionId: id }));
    expect(big.code).toBe('LIMIT_EXCEEDED');
    expect(big.message).toMatch(/\/workspace\/big is 2147483648 bytes: a snapshot takes files of up to \d+ bytes/);
    expect((await storeOnDisk(sp.config.home)).manifests).toEqual([]);

    // three snapshots of different sparse files: the host's disk holds their few real bytes, not 270 MiB of zeros
    for (const n of [1, 2, 3]) {
      await sh(
        sp,
        id,
        `rm -f /workspace/big /workspace/sparse-*; truncate -s 90M /workspace/sparse-${n}; printf 'run ${n}' | dd of=/workspace/sparse-${n} bs=1 seek=1000000 conv=notrunc 2>/dev/null`,
      );
      const snapshot = await api(sp, 'snapshots.create', { sessionId: id, name: `sparse ${n}` });
      expect(snapshot.fileBytes).toBe(90 * 1024 * 1024 + 'small\n'.length);
    }
    const { blobs, manifests } = await storeOnDisk(sp.config.home);
    expect(manifests).toHaveLength(3);
    const disk = [...blobs.values()].reduce((a, b) => a + b, 0);
    expect(disk).toBeLessThan(1024 * 1024);
    expect((await api(sp, 'snapshots.list', {})).storedBytes).toBe(disk);
    // and it comes back whole
    const restored = await api(sp, 'snapshots.restore', { snapshot: 'sparse 3' });
    expect(
      await sh(
        sp,
        restored.session.id,
        'stat -c %s /workspace/sparse-3; dd if=/workspace/sparse-3 bs=1 skip=1000000 count=5 2>/dev/null',
      ),
    ).toBe('94371840\nrun 3');
  });

  it('under gVisor (the engine\'s exec carries the stream) a refusal mid-stream ends the snapshot at once, and the session goes on', async () => {
    const sp = await startTestSandpit({ defaultIsolation: 'strong' });
    started.push(sp);
    const { id } = await newSession(sp, {});
    // small files first, then one too large to keep: tar is mid-stream when the snapshot refuses it
    // (in Python: coreutils' ls and stat fail under the runsc of Debian 12 on this machine, whose statx says EINVAL)
    const py = async (code: string): Promise<string | undefined> => {
      const r = await api(sp, 'sessions.execute', { sessionId: id, code });
      expect(r.error, r.error?.traceback).toBeUndefined();
      return r.result;
    };
    const made = await py("import os\nos.makedirs('a')\nfor i in range(5): open(f'a/part-{i}', 'wb').write(os.urandom(300000))\nwith open('zz-big', 'wb') as f: f.truncate(200 * 1024 * 1024)\n(os.stat('zz-big').st_size, len(os.listdir('a')))");
    expect(made).toBe('(209715200, 5)');
    const big = await refusal(api(sp, 'snapshots.create', { sessionId: id }));
    expect(big.code).toBe('LIMIT_EXCEEDED');
    expect(big.message).toMatch(/\/workspace\/zz-big is 209715200 bytes: a snapshot takes files of up to \d+ bytes/);
    // the session's queue is free again: a run, and a snapshot once the file is gone
    expect(await py("import os\nos.remove('zz-big')\nlen(os.listdir('a'))")).toBe('5');
    const snapshot = await api(sp, 'snapshots.create', { sessionId: id });
    expect(snapshot).toMatchObject({ files: 5, fileBytes: 5 * 300000 });
    expect((await storeOnDisk(sp.config.home)).manifests).toHaveLength(1);
  });

  it('refuses a snapshot beyond the space for snapshots in plain words, leaving nothing half-written', async () => {
    const sp = await sandpit();
    const { id } = await newSession(sp, {});
    await sh(sp, id, 'head -c 1500000 /dev/urandom > /workspace/a.bin');
    const first = await api(sp, 'snapshots.create', { sessionId: id, name: 'fits' });
    await api(sp, 'settings.update', { patch: { snapshotStoreMb: 2 } });
    await sh(
      sp,
      id,
      'head -c 1500000 /dev/urandom > /workspace/b.bin; head -c 1500000 /dev/urandom > /workspace/c.bin',
    );
    const before = await storeOnDisk(sp.config.home);
    const full = await refusal(api(sp, 'snapshots.create', { sessionId: id, name: 'too much' }));
    expect(full.code).toBe('LIMIT_EXCEEDED');
    expect(full.message).toMatch(
      /^The space for snapshots is full: they may take 2 MiB of disk together and 1\.\d MiB is taken, so this snapshot does not fit\. Delete snapshots you no longer need, or give snapshots more space in Settings → System\.$/,
    );
    // nothing half-written: the blobs and manifests are exactly those of before
    expect(await storeOnDisk(sp.config.home)).toEqual(before);
    expect((await api(sp, 'snapshots.list', {})).snapshots.map((s) => s.name)).toEqual(['fits']);
    // once space is freed, it is taken
    await api(sp, 'snapshots.delete', { snapshotId: first.id });
    await sh(sp, id, 'rm /workspace/a.bin /workspace/c.bin');
    expect((await api(sp, 'snapshots.create', { sessionId: id, name: 'fits now' })).files).toBe(1);
    await api(sp, 'settings.update', { patch: { snapshotStoreMb: 0 } });
    expect((await refusal(api(sp, 'snapshots.create', { sessionId: id }))).message).toMatch(/Snapshots are turned off/);
  });

  it('leaves out (and names) files and folders the sandbox user cannot read and names with a newline: the snapshot and a fork still work', async () => {
    const sp = await sandpit();
    const { id } = await newSession(sp, {});
    await sh(
      sp,
      id,
      [
        'cd /workspace',
        'echo kept > kept.txt',
        'echo secret > locked.txt && chmod 000 locked.txt',
        'mkdir locked-dir && echo in > locked-dir/x && chmod 000 locked-dir',
        "printf 'odd' > \"$(printf 'line\\nbreak.txt')\"",
        'mkdir "$(printf \'dir\\nname\')" && echo y > "$(printf \'dir\\nname\')/y"',
      ].join(' && '),
    );
    const snapshot = await api(sp, 'snapshots.create', { sessionId: id, name: 'odd files' });
    expect(snapshot.files).toBe(1);
    expect([...snapshot.skipped].sort()).toEqual(['dir\\nname', 'line\\nbreak.txt', 'locked-dir', 'locked.txt']);
    const fork = await api(sp, 'sessions.fork', { sessionId: id, replay: false });
    expect(fork.files).toBe(1);
    expect(await sh(sp, fork.session.id, 'ls /workspace; cat /workspace/kept.txt')).toBe('kept.txt\nkept\n');
  });

  it('cleans a package archive tampered with in the data folder (while Sandpit was stopped) when it is restored', async () => {
    const first = await sandpit();
    const { id } = await newSession(first, {});
    await sh(first, id, 'echo hi > /workspace/hi.txt');
    const snapshot = await api(first, 'snapshots.create', { sessionId: id, name: 'to tamper' });
    const home = first.config.home;
    await first.dispose();

    // The attacker plants an archive with a device node, a setuid-root program and a link out, and points the manifest at it.
    const tar = await evilArchive();
    const sha = createHash('sha256').update(tar).digest('hex');
    await mkdir(join(home, 'snapshots', 'objects', sha.slice(0, 2)), { recursive: true });
    await writeFile(join(home, 'snapshots', 'objects', sha.slice(0, 2), sha), tar);
    const manifestPath = join(home, 'snapshots', 'manifests', `${snapshot.id}.json`);
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<string, unknown> & {
      snapshot: Record<string, unknown>;
    };
    manifest.packages = { sha256: sha, size: tar.length };
    manifest.snapshot.packages = ['evil'];
    await writeFile(manifestPath, JSON.stringify(manifest));

    const second = await sandpit(home);
    const restored = await api(second, 'snapshots.restore', { snapshot: 'to tamper' });
    const seen = await sh(
      second,
      restored.session.id,
      'cd /opt/sandpit/packages/evil && for f in ok.py mem rootsh passwd; do if [ -e "$f" ] || [ -L "$f" ]; then stat -c \'%n %F %a %u\' "$f"; else echo "$f absent"; fi; done',
    );
    expect(seen).toBe('ok.py regular file 644 10001\nmem absent\nrootsh regular file 755 10001\npasswd absent\n');
  });
});
