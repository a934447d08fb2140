import { afterAll, describe, expect, it } from 'vitest';
import type { MethodInput, MethodOutput } from '../../shared/api/contract';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import type { EngineEvent } from '../docker/docker-client';
import { LABEL } from '../docker/labels';
import { testDocker } from '../../test-support/docker';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

const PANEL: CallContext = { transport: 'internal' };

/** The panel's calls to this core's API. */
function apiOf(sp: TestSandpit): <M extends Parameters<typeof call>[1]>(method: M, input: MethodInput<M>) => Promise<MethodOutput<M>> {
  return (method, input) => call(sp.api, method, input, PANEL);
}

/** The engine's exec starts in the containers of this core, as the engine reports them (`exec_create: tar …`). */
async function watchExecs(sp: TestSandpit): Promise<{ execs: () => string[]; stop: () => void }> {
  const seen: EngineEvent[] = [];
  const stop = await testDocker().watchEvents({ [LABEL.instance]: sp.identity.instanceId }, (event) => seen.push(event), () => undefined);
  return { execs: () => seen.filter((e) => e.action.startsWith('exec_create')).map((e) => e.action), stop };
}

/**
 * A snapshot reads the workspace, and a restore writes it, as one tar stream through the agent's pipe (a socket in
 * the session's agent folder): the engine runs no exec for them. Where the sandbox shares no folder with the host
 * (gVisor) the engine's exec still carries them.
 */
describe.each([
  ['standard', 'through the agent’s pipe: the engine starts no exec', false],
  ['strong', 'through the engine’s exec (gVisor shares no socket with the host)', true],
] as const)('snapshot, restore and fork under %s isolation go %s', (isolation, _how, execs) => {
  let sp: TestSandpit | undefined;
  afterAll(async () => {
    await sp?.cleanup();
  });

  it('keeps every file (nested, large, odd names), leaves links out, and restores into a warm sandbox when the limits are the defaults', async () => {
    sp = await startTestSandpit({ poolSize: 1, defaultIsolation: isolation });
    const api = apiOf(sp);
    const source = await newSession(sp, {});
    const made = await api('sessions.execute', {
      sessionId: source.id,
      code: [
        'import os',
        "os.makedirs('deep/er/est', exist_ok=True)",
        "open('deep/er/est/leaf.txt', 'w').write('leaf')",
        "open('big.bin', 'wb').write(bytes(range(256)) * 16384)",
        "open('name with spaces & ünïcode.txt', 'w').write('odd')",
        "os.symlink('/etc/passwd', 'link-out')",
      ].join('\n'),
    });
    expect(made.status).toBe('ok');
    const watch = await watchExecs(sp);
    try {
      const snapshot = await api('snapshots.create', { sessionId: source.id });
      expect(snapshot).toMatchObject({ files: 3, fileBytes: 4 + 4 * 1024 * 1024 + 3 });
      expect(snapshot.skipped).toEqual(['link-out']);
      const restored = await api('snapshots.restore', { snapshot: snapshot.id });
      expect(restored.session.fromPool).toBe(true);
      const read = async (path: string): Promise<string> => (await api('files.read', { sessionId: restored.session.id, path })).content;
      expect(await read('deep/er/est/leaf.txt')).toBe('leaf');
      expect(await read('name with spaces & ünïcode.txt')).toBe('odd');
      const check = await api('sessions.execute', { sessionId: restored.session.id, code: "import os\n(open('big.bin', 'rb').read() == bytes(range(256)) * 16384, os.path.lexists('link-out'))" });
      expect(check.result).toBe('(True, False)');
      const fork = await api('sessions.fork', { sessionId: source.id });
      expect(fork.files).toBe(3);
      if (execs) expect(watch.execs().length).toBeGreaterThan(0);
      else expect(watch.execs()).toEqual([]);
    } finally {
      watch.stop();
    }
  });

  it('keeps a file that is itself a tar archive (with ../ names and a link) as one file, byte for byte, and names over 100 bytes whole', async () => {
    sp ??= await startTestSandpit({ poolSize: 1, defaultIsolation: isolation });
    const api = apiOf(sp);
    const source = await newSession(sp, {});
    // Code in the sandbox plants tar headers in a file's content, to be read as entries of the snapshot's own stream.
    const made = await api('sessions.execute', {
      sessionId: source.id,
      code: [
        'import hashlib, io, os, tarfile',
        'buf = io.BytesIO()',
        "with tarfile.open(fileobj=buf, mode='w', format=tarfile.GNU_FORMAT) as t:",
        "    for name in ('../../escape.txt', '/abs-escape.txt', 'plain.txt'):",
        "        info = tarfile.TarInfo(name); data = b'planted'; info.size = len(data); t.addfile(info, io.BytesIO(data))",
        "    link = tarfile.TarInfo('inner-link'); link.type = tarfile.SYMTYPE; link.linkname = '/etc/passwd'; t.addfile(link)",
        "open('inner.tar', 'wb').write(buf.getvalue())",
        "long_dir = 'd' * 120 + '/' + 'e' * 120",
        'os.makedirs(long_dir)',
        "open(long_dir + '/' + 'f' * 200 + '.txt', 'w').write('long')",
        "hashlib.sha256(open('inner.tar', 'rb').read()).hexdigest()",
      ].join('\n'),
    });
    expect(made.status).toBe('ok');
    const digest = made.result?.replace(/'/g, '');
    const snapshot = await api('snapshots.create', { sessionId: source.id });
    expect(snapshot).toMatchObject({ files: 2, skipped: [] });
    const restored = await api('snapshots.restore', { snapshot: snapshot.id });
    const check = await api('sessions.execute', {
      sessionId: restored.session.id,
      code: [
        'import hashlib, os',
        "found = sorted(os.path.join(d, f)[2:] for d, _, fs in os.walk('.') for f in fs)",
        "(hashlib.sha256(open('inner.tar', 'rb').read()).hexdigest(), len(found), os.path.exists('/escape.txt') or os.path.exists('/abs-escape.txt') or os.path.exists('/workspace/plain.txt'), open(found[0]).read() if found[0] != 'inner.tar' else open(found[1]).read())",
      ].join('\n'),
    });
    expect(check.result).toBe(`('${digest}', 2, False, 'long')`);
  });
});

describe('the pipe seen from inside the sandbox', () => {
  let sp: TestSandpit | undefined;
  afterAll(async () => {
    await sp?.cleanup();
  });

  it('its sockets cannot be found: code in the sandbox cannot list the agent folder, during a snapshot too', async () => {
    sp = await startTestSandpit();
    const api = apiOf(sp);
    const session = await newSession(sp, {});
    await api('files.write', { sessionId: session.id, path: 'data.txt', content: 'x'.repeat(1_000_000) });
    // A process of the sandbox keeps looking for the pipe's socket while the snapshot is taken.
    const probe = await api('processes.start', {
      sessionId: session.id,
      command:
        "python3 -c \"import os, time\nend = time.time() + 20\nseen = set()\nwhile time.time() < end:\n    try:\n        seen.update(os.listdir('/run/sandpit'))\n    except PermissionError:\n        seen.add('denied')\n    time.sleep(0.005)\nprint(sorted(seen), flush=True)\"",
    });
    const snapshot = await api('snapshots.create', { sessionId: session.id });
    expect(snapshot.files).toBe(1);
    let output = '';
    const deadline = Date.now() + 40_000;
    while (!output.includes(']') && Date.now() < deadline) output = (await api('processes.output', { processId: probe.id, since: 0, waitSeconds: 5 })).text;
    expect(output.trim()).toBe("['denied']");
  });
});
