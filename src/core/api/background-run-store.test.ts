import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../log';
import { BackgroundRunStore, MAX_RECORD_BYTES, STOPPED_AT_QUIT } from './background-run-store';
import type { RunRecord } from './background-run-store';

const OWNER = 'token:0123456789abcdef\u0000claude-code';

function record(runId: string, change: Partial<RunRecord['view']> = {}, stdout = 'tick 0\n'): RunRecord {
  return {
    version: 1,
    owner: OWNER,
    view: { runId, kind: 'code', state: 'done', status: 'ok', sessionId: 'ses-abc123', what: 'print(1)', createdAt: '2026-12-03T07:00:00.000Z', timeoutMs: 60_000, cancelRequested: false, outputChars: stdout.length, ...change },
    execution: {
      executionId: runId, sessionId: 'ses-abc123', status: 'ok', stdout, stderr: '', result: "'finished'", displays: [],
      truncated: { stdout: false, stderr: false }, durationMs: 12, files: [], artifacts: [], stateLost: false,
    },
  };
}

describe('BackgroundRunStore: background runs kept in the data folder, read back as untrusted input', () => {
  let home: string;
  let dir: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-runs-'));
    dir = join(home, 'background-runs');
  });
  afterEach(async () => rm(home, { recursive: true, force: true }));

  it('a finished run comes back with its owner and result; one that had not ended comes back stopped, in the quit words', async () => {
    const store = new BackgroundRunStore(home, silentLogger);
    store.save(record('run-aaaaaaaa'));
    store.save(record('run-bbbbbbbb', { state: 'running', status: undefined, waiting: 'x', createdAt: '2026-12-03T07:01:00.000Z' }));
    await store.flush();
    const again = new BackgroundRunStore(home, silentLogger);
    const back = await again.load();
    expect(back.map((r) => r.view.runId)).toEqual(['run-aaaaaaaa', 'run-bbbbbbbb']);
    expect(back[0]!.owner).toBe(OWNER);
    expect(back[0]!.execution?.result).toBe("'finished'");
    expect(back[1]!.view.state).toBe('failed');
    expect(back[1]!.view.error).toEqual({ code: 'STOPPED', message: STOPPED_AT_QUIT });
    expect(STOPPED_AT_QUIT).toBe('Stopped: Sandpit quit.');
    await again.flush();
    // Written so: a third start reads it stopped too, with the same time it was found.
    const third = await new BackgroundRunStore(home, silentLogger).load();
    expect(third[1]!.view.endedAt).toBe(back[1]!.view.endedAt);
  });

  it.each([
    ['an owner that is not one (empty)', (r: Record<string, unknown>) => ({ ...r, owner: '' })],
    ['an owner of another type', (r: Record<string, unknown>) => ({ ...r, owner: { principal: 'token:x' } })],
    ['an owner with a path in it', (r: Record<string, unknown>) => ({ ...r, owner: '../../etc\u0000x' })],
    ['another id than its file name', (r: Record<string, unknown>) => ({ ...r, view: { ...(r.view as object), runId: 'run-cccccccc' } })],
    ['a field no record has', (r: Record<string, unknown>) => ({ ...r, admin: true })],
    ['a command result on a code run', (r: Record<string, unknown>) => ({ ...r, command: { sessionId: 'ses-abc123', exitCode: 0, stdout: '', stderr: '', timedOut: false, durationMs: 1 } })],
    ['a result of another session', (r: Record<string, unknown>) => ({ ...r, execution: { ...(r.execution as object), sessionId: 'ses-other' } })],
    ['an artifact that names no content hash', (r: Record<string, unknown>) => ({ ...r, execution: { ...(r.execution as object), artifacts: [{ sha256: '../../x', path: 'a', mime: 'text/plain', size: 1, sessionId: 'ses-abc123', createdAt: 'x' }] } })],
  ])('a tampered record is refused and removed: %s', async (_what, tamper) => {
    const store = new BackgroundRunStore(home, silentLogger);
    store.save(record('run-aaaaaaaa'));
    store.save(record('run-dddddddd'));
    await store.flush();
    const path = join(dir, 'run-aaaaaaaa.json');
    await writeFile(path, JSON.stringify(tamper(JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>)));
    const back = await new BackgroundRunStore(home, silentLogger).load();
    expect(back.map((r) => r.view.runId)).toEqual(['run-dddddddd']);
    expect(await readdir(dir)).toEqual(['run-dddddddd.json']);
  });

  it('a file that is not JSON, or too big, is refused; files not named like a record are not touched', async () => {
    await new BackgroundRunStore(home, silentLogger).load();
    const store = new BackgroundRunStore(home, silentLogger);
    store.save(record('run-aaaaaaaa'));
    await store.flush();
    await writeFile(join(dir, 'run-eeeeeeee.json'), '{"version":1,');
    await writeFile(join(dir, 'run-ffffffff.json'), 'x'.repeat(MAX_RECORD_BYTES + 1));
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const back = await new BackgroundRunStore(home, silentLogger).load();
    expect(back.map((r) => r.view.runId)).toEqual(['run-aaaaaaaa']);
    expect((await readdir(dir)).sort()).toEqual(['notes.txt', 'run-aaaaaaaa.json']);
  });

  it('a result too big to keep whole is kept shortened: the last part of its output, saying so', async () => {
    const store = new BackgroundRunStore(home, silentLogger);
    const big = `${'a'.repeat(MAX_RECORD_BYTES)}the last line\n`;
    store.save(record('run-aaaaaaaa', {}, big));
    await store.flush();
    const [back] = await new BackgroundRunStore(home, silentLogger).load();
    expect(back!.execution!.stdout.endsWith('the last line\n')).toBe(true);
    expect(back!.execution!.stdout.length).toBeLessThan(big.length);
    expect(back!.execution!.truncated.stdout).toBe(true);
    expect(back!.execution!.message).toContain('Kept shortened by Sandpit');
  });

  it('forget removes a record from the folder', async () => {
    const store = new BackgroundRunStore(home, silentLogger);
    store.save(record('run-aaaaaaaa'));
    store.forget('run-aaaaaaaa');
    await store.flush();
    expect(await readdir(dir)).toEqual([]);
  });
});
