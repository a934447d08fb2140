// A shared folder swapped for a link between its check and its mount (issue 20, finding 3), attacked from
// inside the sandbox under both isolation levels: the engine follows a bind mount's source at every start,
// so every start checks the folders again and mounts only what it checked.
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISOLATION_LEVELS } from '../../shared/domain/isolation';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';

const PANEL: CallContext = { transport: 'ipc', client: 'panel' };
const SECRET = 'aws-secret-4d2e';

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string; details?: { reason?: string } }> {
  return promise.then(
    (value) => {
      throw new Error(`not refused: ${JSON.stringify(value).slice(0, 300)}`);
    },
    (e: unknown) => e as { code: string; message: string; details?: { reason?: string } },
  );
}

describe.each(ISOLATION_LEVELS)('a shared folder swapped for a link (%s isolation)', (isolation) => {
  let sp: TestSandpit;
  let root: string;
  let outer: string;
  let inner: string;
  let secrets: string;

  beforeAll(async () => {
    sp = await startTestSandpit({ defaultIsolation: isolation });
    root = await mkdtemp(join(tmpdir(), 'sandpit-swap-'));
    outer = join(root, 'outer');
    inner = join(outer, 'inner');
    secrets = join(root, 'aws');
    await mkdir(inner, { recursive: true });
    await mkdir(secrets);
    await writeFile(join(inner, 'hello.txt'), 'inner file');
    await writeFile(join(secrets, 'credentials'), SECRET);
    await chmod(root, 0o755);
    // The outer folder is the person's group's to write (Sandpit adds that group to the sandbox user).
    await chown(outer, 0, 4242);
    await chmod(outer, 0o2775);
    await chmod(inner, 0o755);
    await chmod(join(inner, 'hello.txt'), 0o644);
    await chmod(secrets, 0o755);
    await chmod(join(secrets, 'credentials'), 0o644);
    // Stands for ~/.aws: a folder on the protected list.
    const current = (await call(sp.api, 'settings.get', {}, PANEL)).protectedFolders;
    await call(sp.api, 'settings.update', { patch: { protectedFolders: [...current, secrets] } }, PANEL);
  });
  afterAll(async () => {
    await sp?.cleanup();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('refuses a folder inside a read-write folder of the same session, and a read-write folder around one', async () => {
    const first = await call(sp.api, 'sessions.create', {}, PANEL);
    await call(sp.api, 'sessions.addFolder', { sessionId: first.id, folder: { hostPath: outer, mode: 'rw' } }, PANEL);
    const nested = await refusal(call(sp.api, 'sessions.addFolder', { sessionId: first.id, folder: { hostPath: inner } }, PANEL));
    expect(nested).toMatchObject({ code: 'CONFLICT', details: { reason: 'nested' } });
    expect(nested.message).toContain('could replace');

    const second = await call(sp.api, 'sessions.create', {}, PANEL);
    await call(sp.api, 'sessions.addFolder', { sessionId: second.id, folder: { hostPath: inner } }, PANEL);
    const around = await refusal(call(sp.api, 'sessions.addFolder', { sessionId: second.id, folder: { hostPath: outer, mode: 'rw' } }, PANEL));
    expect(around).toMatchObject({ code: 'CONFLICT', details: { reason: 'nested' } });
    // Read-only around read-only is fine: nothing can change the inner one through it.
    const third = await call(sp.api, 'sessions.create', {}, PANEL);
    await call(sp.api, 'sessions.addFolder', { sessionId: third.id, folder: { hostPath: inner } }, PANEL);
    const both = await call(sp.api, 'sessions.addFolder', { sessionId: third.id, folder: { hostPath: outer, mode: 'ro' } }, PANEL);
    expect(both.folders.map((f) => f.mode)).toEqual(['ro', 'ro']);
    for (const s of [first, second, third]) await call(sp.api, 'sessions.stop', { sessionId: s.id }, PANEL);
  });

  it('another session swaps the folder for a link to a protected folder, then to /: the forced restart mounts neither', async () => {
    const writer = await call(sp.api, 'sessions.create', {}, PANEL);
    await call(sp.api, 'sessions.addFolder', { sessionId: writer.id, folder: { hostPath: outer, mode: 'rw' } }, PANEL);
    const reader = await call(sp.api, 'sessions.create', {}, PANEL);
    const shared = await call(sp.api, 'sessions.addFolder', { sessionId: reader.id, folder: { hostPath: inner } }, PANEL);
    const mountPath = shared.folders[0]!.mountPath;
    const read = `import os\nprint(sorted(os.listdir('${mountPath}')))\nfor name in ['hello.txt', 'credentials', 'etc/hostname']:\n    try:\n        print(open('${mountPath}/' + name).read())\n    except OSError as e:\n        print(name, e.strerror)`;
    expect((await call(sp.api, 'sessions.execute', { sessionId: reader.id, code: read }, PANEL)).stdout).toContain('inner file');

    for (const target of [secrets, '/']) {
      // From inside the writer's sandbox, through its read-write share.
      const swap = await call(
        sp.api,
        'sessions.execute',
        {
          sessionId: writer.id,
          code: `import os\nbase = '/workspace/shared/outer'\nif os.path.islink(base + '/inner'):\n    os.unlink(base + '/inner')\nelif os.path.isdir(base + '/inner'):\n    os.rename(base + '/inner', base + '/inner-old')\nos.symlink('${target}', base + '/inner')\nprint(os.readlink(base + '/inner'))`,
        },
        PANEL,
      );
      expect(swap.stdout, swap.stderr).toBe(`${target}\n`);
      // The reader's code ignores the interrupt: its timeout kills the container, which must start again.
      const forced = await call(
        sp.api,
        'sessions.execute',
        { sessionId: reader.id, code: 'import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass', timeoutMs: 1_500 },
        PANEL,
      ).then(
        (r) => JSON.stringify(r),
        (error: unknown) => (error as Error).message,
      );
      expect(forced).not.toContain(SECRET);
      // The run says what became of the sandbox: not restarted.
      expect(forced).toMatch(/could not be started again/);
      const after = await call(sp.api, 'sessions.execute', { sessionId: reader.id, code: read }, PANEL).then(
        (r) => `${r.status} ${r.stdout} ${r.error?.value ?? ''} ${r.message ?? ''}`,
        (error: unknown) => `refused: ${(error as Error).message}`,
      );
      expect(after).not.toContain(SECRET);
      expect(after).not.toContain("'bin'");
      // Refused, saying which folder and why (the place it now leads to is refused like any shared folder).
      expect(after).toMatch(/could not be started again \(The shared folder .*outer\/inner .*is not mounted: .*a link to/);
    }
  });
});
