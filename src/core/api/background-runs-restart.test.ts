import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../shared/domain/execution';
import { EventBus } from '../events/event-bus';
import { silentLogger } from '../log';
import type { SessionManager } from '../sessions/session-manager';
import type { CallContext, Handlers } from './api-types';
import { BackgroundRunStore } from './background-run-store';
import { BackgroundRuns } from './background-runs';

const ALICE: CallContext = { transport: 'mcp-http', client: 'alice', principal: 'token:aaaaaaaaaaaaaaaa', runOwner: 'token:aaaaaaaaaaaaaaaa\u0000alice' };
const MALLORY: CallContext = { transport: 'mcp-http', client: 'mallory', principal: 'token:bbbbbbbbbbbbbbbb', runOwner: 'token:bbbbbbbbbbbbbbbb\u0000mallory' };

function result(executionId: string): ExecutionResult {
  return {
    executionId, sessionId: 'ses-abc123', status: 'ok', stdout: 'tick 0\ntick 1\n', stderr: '', result: "'finished'", displays: [],
    truncated: { stdout: false, stderr: false }, durationMs: 5, files: [], artifacts: [], stateLost: false,
  };
}

/** One core's background runs over a fake run handler: `hold` keeps code that says so running until the core quits. */
function core(home: string): { runs: BackgroundRuns; quit: () => void } {
  const quitting = { now: false };
  const held: Array<(r: ExecutionResult) => void> = [];
  const sessions = { get quitting() { return quitting.now; }, session: () => ({ interrupt: () => undefined }) } as unknown as SessionManager;
  const api = {
    'sessions.execute': async ({ code, executionId }: { code: string; executionId: string }) =>
      code === 'hold' ? new Promise<ExecutionResult>((resolve) => held.push(resolve)) : result(executionId),
  } as unknown as Handlers;
  const runs = new BackgroundRuns({ bus: new EventBus(), sessions, api: () => api, maxMinutes: () => 60, store: new BackgroundRunStore(home, silentLogger), log: silentLogger });
  return {
    runs,
    quit: () => {
      quitting.now = true;
      for (const resolve of held) resolve({ ...result('x'), status: 'killed', stoppedBy: { by: 'sandpit', why: 'Sandpit was quitting' } });
    },
  };
}

const get = (runs: BackgroundRuns, runId: string, context: CallContext): ReturnType<BackgroundRuns['get']> => runs.get({ runId, since: 0, waitMs: 0, maxChars: 65_536 }, context);

describe('background runs across a restart of Sandpit (records in the data folder)', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-runs-restart-'));
  });
  afterEach(async () => rm(home, { recursive: true, force: true }));

  it('after a restart its owner gets a finished run\'s result and is told plainly a stopped one was stopped; another client gets neither', async () => {
    const first = core(home);
    const done = first.runs.start({ kind: 'code', code: '"finished"' }, ALICE);
    const held = first.runs.start({ kind: 'code', code: 'hold' }, ALICE);
    await expect.poll(async () => (await get(first.runs, done.runId, ALICE)).run.state).toBe('done');
    first.quit();
    await expect.poll(async () => (await get(first.runs, held.runId, ALICE)).run.state).toBe('failed');
    await first.runs.flush();

    const second = core(home);
    const back = await get(second.runs, done.runId, ALICE);
    expect(back.run.state).toBe('done');
    expect(back.execution?.result).toBe("'finished'");
    expect(back.output.map((c) => c.text).join('')).toBe('tick 0\ntick 1\n');
    const stopped = await get(second.runs, held.runId, ALICE);
    expect(stopped.run.error?.message).toBe('Stopped: Sandpit quit.');
    expect((await second.runs.list(undefined, ALICE)).map((r) => r.runId)).toEqual([held.runId, done.runId]);
    await expect(get(second.runs, done.runId, MALLORY)).rejects.toThrow(`No background run ${done.runId} of yours`);
    expect(await second.runs.list(undefined, MALLORY)).toEqual([]);
    // The person in the panel sees both.
    expect(await second.runs.list(undefined, { transport: 'ipc' })).toHaveLength(2);
    await second.runs.flush();
  });

  it('a run whose core died before it ended (no quit) reads back as stopped in the same words', async () => {
    const first = core(home);
    const held = first.runs.start({ kind: 'code', code: 'hold' }, ALICE);
    await first.runs.flush();
    const second = core(home);
    expect((await get(second.runs, held.runId, ALICE)).run.error).toEqual({ code: 'STOPPED', message: 'Stopped: Sandpit quit.' });
    // Both cores' records written before the data folder goes (the second writes back the run it found stopped).
    first.quit();
    await expect.poll(async () => (await get(first.runs, held.runId, ALICE)).run.state).toBe('failed');
    await first.runs.flush();
    await second.runs.flush();
  });

  it('an owner rewritten on disk to another client\'s does not hand the run over: the record is refused', async () => {
    const first = core(home);
    const done = first.runs.start({ kind: 'code', code: '"finished"' }, ALICE);
    await expect.poll(async () => (await get(first.runs, done.runId, ALICE)).run.state).toBe('done');
    await first.runs.flush();
    const path = join(home, 'background-runs', `${done.runId}.json`);
    const record = JSON.parse(await readFile(path, 'utf8')) as { owner: string };
    // Not an owner key at all (a principal with NULs in its name): refused, so nobody gets it, not even the panel.
    await writeFile(path, JSON.stringify({ ...record, owner: `${MALLORY.runOwner!}\u0000\u0000` }));
    const second = core(home);
    await expect(get(second.runs, done.runId, MALLORY)).rejects.toThrow('of yours');
    await expect(get(second.runs, done.runId, ALICE)).rejects.toThrow('of yours');
    expect(await second.runs.list(undefined, { transport: 'ipc' })).toEqual([]);
  });
});
