import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EventPayload } from '../../shared/api/contract';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

/**
 * bash sessions: the python image with its agent in bash mode. Each run is a one-shot `bash -c` in the
 * workspace, with the limits, timeouts, output caps and file reports of every other session.
 */
describe('bash sessions', () => {
  let sp: TestSandpit;
  let sessionId: string;

  beforeAll(async () => {
    sp = await startTestSandpit({ graceMs: 2_000 });
    sessionId = (await newSession(sp, { language: 'bash' })).id;
  });
  afterAll(async () => sp?.cleanup());

  it('runs on the python image', () => {
    const info = sp.sessions.session(sessionId).info();
    expect(info.language).toBe('bash');
    expect(info.image).toBe(inject('images').python);
  });

  it('runs a command in the workspace: stdout, stderr and exit code 0', async () => {
    const r = await sp.sessions.session(sessionId).execute('echo "hello $((6 * 7))"; echo oops >&2; pwd; echo "$0"; id -u');
    expect(r.status).toBe('ok');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('hello 42\n/workspace\nbash\n10001\n');
    expect(r.stderr).toBe('oops\n');
    expect(r.error).toBeUndefined();
    expect(r.result).toBeUndefined();
  });

  it('reports a non-zero exit code as an error with that code', async () => {
    const r = await sp.sessions.session(sessionId).execute('echo before; ls /no/such/dir; exit 3');
    expect(r.status).toBe('error');
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('before\n');
    expect(r.stderr).toContain('/no/such/dir');
    expect(r.error).toMatchObject({ name: 'CommandFailed', value: 'exit code 3' });
    const killed = await sp.sessions.session(sessionId).execute('kill -KILL $$');
    expect(killed).toMatchObject({ status: 'error', exitCode: 137, stateLost: false });
    expect((await sp.sessions.session(sessionId).execute('false')).exitCode).toBe(1);
  });

  it('keeps no shell state between runs, only files', async () => {
    await sp.sessions.session(sessionId).execute('export GONE=1; cd /tmp; echo kept > note.txt');
    const r = await sp.sessions.session(sessionId).execute('echo "[${GONE:-unset}]"; pwd; cat /tmp/note.txt');
    expect(r.stdout).toBe('[unset]\n/workspace\nkept\n');
  });

  it('streams output while the command runs, before the run ends', async () => {
    const seen: Array<{ kind: string; text?: string; at: number }> = [];
    const off = sp.bus.onAny((name, payload) => {
      const p = payload as EventPayload<'execution.output'>;
      if (p.sessionId !== sessionId) return;
      if (name === 'execution.output') seen.push({ kind: p.stream, text: p.text, at: Date.now() });
      if (name === 'execution.done') seen.push({ kind: 'done', at: Date.now() });
    });
    const r = await sp.sessions.session(sessionId).execute('echo one; sleep 0.5; echo two >&2; sleep 0.5; echo three');
    off();
    expect(r.status).toBe('ok');
    expect(seen.filter((s) => s.kind !== 'done').map((s) => s.text).join('')).toBe('one\ntwo\nthree\n');
    expect(seen.findIndex((s) => s.kind === 'done')).toBe(seen.length - 1);
    const one = seen.find((s) => s.text?.includes('one'));
    const three = seen.find((s) => s.text?.includes('three'));
    expect(three!.at - one!.at).toBeGreaterThanOrEqual(800);
  });

  it('lists the files a command creates and keeps them as artifacts', async () => {
    const r = await sp.sessions.session(sessionId).execute('mkdir -p out && printf "a,b\\n1,2\\n" > out/data.csv');
    expect(r.status).toBe('ok');
    expect(r.files).toEqual([{ path: 'out/data.csv', size: 8 }]);
    const artifact = r.artifacts.find((a) => a.path === 'out/data.csv');
    expect(artifact).toBeDefined();
    expect((await sp.artifacts.get(artifact!.sha256)).content.toString()).toBe('a,b\n1,2\n');
  });

  it('stops a command at the timeout, with nothing of it left running', async () => {
    const started = Date.now();
    const r = await sp.sessions.session(sessionId).execute('sleep 1000 & trap "" INT; echo started; while true; do :; done', { timeoutMs: 1_500 });
    expect(r.status).toBe('timeout');
    expect(r.stateLost).toBe(false);
    expect(r.stdout).toBe('started\n');
    expect(Date.now() - started).toBeLessThan(1_500 + 2_000 + 1_500);
    const ps = await sp.sessions.session(sessionId).execute('cat /proc/[0-9]*/comm | sort | tr "\\n" " "');
    expect(ps.stdout).not.toMatch(/sleep/);
  });

  it('stops what a command left in the background when it ends', async () => {
    const r = await sp.sessions.session(sessionId).execute('setsid sleep 1000 & sleep 0.3; echo started');
    expect(r.status).toBe('ok');
    expect(r.message).toMatch(/left running in the background (was|were) stopped/);
    const ps = await sp.sessions.session(sessionId).execute('cat /proc/[0-9]*/comm | sort | tr "\\n" " "');
    expect(ps.stdout).not.toMatch(/sleep/);
  });

  it('truncates an endless output with a visible marker', async () => {
    const { id } = await newSession(sp, { language: 'bash', limits: { outputBytes: 64 * 1024 } });
    const r = await sp.sessions.session(id).execute('yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', { timeoutMs: 2_000 });
    expect(r.status).toBe('timeout');
    expect(r.truncated.stdout).toBe(true);
    expect(r.stdout).toMatch(/\[output truncated: \d+ more bytes of stdout not shown \(limit 64 KiB per stream\)\]/);
    expect(r.stdout.length).toBeLessThan(64 * 1024 + 500);
  });

  it('reports a command killed for memory as oom, and the session goes on', async () => {
    const { id } = await newSession(sp, { language: 'bash', limits: { memoryMb: 256 } });
    const r = await sp.sessions.session(id).execute("python3 -c \"x = ' ' * (2 * 1024 ** 3)\"", { timeoutMs: 30_000 });
    expect(r.status).toBe('oom');
    expect(r.stateLost).toBe(false);
    const next = await sp.sessions.session(id).execute('echo fine');
    expect(next).toMatchObject({ status: 'ok', stdout: 'fine\n' });
  });

  it('refuses a bash session on the node image, whose agent has no bash mode, naming both, and leaves nothing running', async () => {
    const image = inject('images').node;
    if (!image) throw new Error('The node executor image was not built by the docker globalSetup.');
    const before = sp.sessions.list().length;
    await expect(sp.sessions.create({ language: 'bash', image })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: `The sandbox image ${image} runs JavaScript, not Bash: a Bash session needs an image made for Bash. Choose an environment (or base) of that language.`,
    });
    expect(sp.sessions.list()).toHaveLength(before);
    // No warm pool here (startTestSandpit): every container of this instance is a live session's, the refused one is gone.
    const live = new Set(sp.sessions.list().map((s) => s.id));
    const containers = await sp.docker.listContainers({ 'dev.sandpit.instance': sp.identity.instanceId });
    expect(containers.filter((c) => !live.has(c.labels['dev.sandpit.session'] ?? ''))).toEqual([]);
  });
});
