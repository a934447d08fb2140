import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodInput, MethodOutput } from '../../shared/api/contract';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

const PANEL: CallContext = { transport: 'internal' };
const KEEP_BYTES = 300 * 1024;

/**
 * Incremental snapshots on the real engine: a second snapshot of the same session reads from the sandbox only
 * the files whose inode, size, mtime or ctime changed (counted in bytes read), reuses the stored blobs of the
 * others, never follows a file replaced by a link, and never reads what the sandbox user cannot.
 */
describe('incremental snapshots', () => {
  let sp: TestSandpit | undefined;
  const api = <M extends Parameters<typeof call>[1]>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>> => call(sp!.api, method, input, PANEL);
  const run = async (sessionId: string, code: string): Promise<string | undefined> => {
    const r = await api('sessions.execute', { sessionId, code });
    expect(r.error, r.error?.traceback).toBeUndefined();
    return r.result;
  };

  beforeAll(async () => {
    sp = await startTestSandpit();
  });
  afterAll(async () => {
    await sp?.cleanup();
  });

  it('reads only what changed, reuses the rest, and never follows a file replaced by a link', async () => {
    const source = await newSession(sp!);
    const keepHash = await run(
      source.id,
      `import os, hashlib\nos.makedirs('d', exist_ok=True)\nb = os.urandom(${KEEP_BYTES})\nopen('d/keep.bin', 'wb').write(b)\nopen('change.txt', 'w').write('v1')\nopen('victim.txt', 'w').write('mine')\nhashlib.sha256(b).hexdigest()`,
    );
    const first = await api('snapshots.create', { sessionId: source.id, name: 'first' });
    expect(first.files).toBe(3);
    expect(first.readBytes).toBe(KEEP_BYTES + 2 + 4);

    // One file changes (same size: its mtime and ctime tell), one becomes a link to a file outside the workspace.
    await run(source.id, "import os, time\ntime.sleep(0.05)\nopen('change.txt', 'w').write('v2')\nos.remove('victim.txt')\nos.symlink('/etc/passwd', 'victim.txt')");
    const second = await api('snapshots.create', { sessionId: source.id, name: 'second' });
    expect(second.files).toBe(2);
    expect(second.readBytes).toBe(2);
    expect(second.addedBytes).toBeLessThan(KEEP_BYTES);
    expect(second.skipped).toContain('victim.txt');

    const restored = (await api('snapshots.restore', { snapshot: 'second' })).session;
    expect(await run(restored.id, "import hashlib\nhashlib.sha256(open('d/keep.bin', 'rb').read()).hexdigest()")).toBe(keepHash);
    expect(await run(restored.id, "open('change.txt').read()")).toBe("'v2'");
    expect(await run(restored.id, "import os\nos.path.lexists('victim.txt')")).toBe('False');
    await api('sessions.stop', { sessionId: restored.id });

    // A file the sandbox user can no longer read changed its ctime: it is looked at again, not read (never as root), and named.
    await run(source.id, "import os\nos.chmod('d/keep.bin', 0)");
    const third = await api('snapshots.create', { sessionId: source.id, name: 'third' });
    expect(third.readBytes).toBe(0);
    expect(third.files).toBe(1);
    expect(third.skipped).toContain('d/keep.bin');
    await api('sessions.stop', { sessionId: source.id });
  });
});
