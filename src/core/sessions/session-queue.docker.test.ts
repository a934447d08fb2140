// Every operation on a session goes through its queue and the global run slots: reads and listings
// wait behind a run that writes, and count against the cap like runs. Against the real engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { pollUntil } from '../util/with-timeout';

const PANEL: CallContext = { transport: 'ipc', client: 'panel' };

/** Settles to 'pending' while the promise has not settled, so order can be checked without timing. */
function track<T>(promise: Promise<T>): { settled: () => boolean; value: Promise<T> } {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  return { settled: () => done, value: promise };
}

describe('the session queue', () => {
  let sp: TestSandpit;
  beforeAll(async () => {
    sp = await startTestSandpit({ maxConcurrentRuns: 1 });
  });
  afterAll(async () => sp?.cleanup());

  it('makes a read_file sent while a run writes that file wait for the run: it reads what the run wrote last', async () => {
    const s = await call(sp.api, 'sessions.create', {}, PANEL);
    let halfWritten = false;
    const off = sp.bus.on('execution.output', (event) => {
      if (event.sessionId === s.id && event.text.includes('half written')) halfWritten = true;
    });
    const writer = track(
      call(sp.api, 'sessions.execute', {
        sessionId: s.id,
        code: [
          'import time',
          "f = open('/workspace/log.txt', 'w')",
          "f.write('first half\\n'); f.flush()",
          "print('half written', flush=True)",
          'time.sleep(2)',
          "f.write('second half\\n'); f.close()",
        ].join('\n'),
      }, PANEL),
    );
    // The read is sent once the run has written its first half (so the file exists, half full).
    await pollUntil(() => (halfWritten ? true : undefined), 15_000, 'the run wrote the first half');
    off();
    const reader = track(call(sp.api, 'files.read', { sessionId: s.id, path: 'log.txt' }, PANEL));
    const lister = track(call(sp.api, 'files.list', { sessionId: s.id }, PANEL));
    // Both wait on the session's queue, behind the run.
    await pollUntil(() => (sp.sessions.session(s.id).pending === 3 ? true : undefined), 15_000, 'the read and the listing are queued');
    expect(reader.settled()).toBe(false);
    const run = await writer.value;
    expect(run.status).toBe('ok');
    const file = await reader.value;
    expect(file.content).toBe('first half\nsecond half\n');
    expect((await lister.value).entries.map((e) => e.path)).toEqual(['log.txt']);
  });

  it('counts reads, listings and package checks against the global cap, like runs', async () => {
    const a = await call(sp.api, 'sessions.create', {}, PANEL);
    const b = await call(sp.api, 'sessions.create', {}, PANEL);
    const slots = sp.sessions.slots;
    const busy = track(call(sp.api, 'sessions.execute', { sessionId: a.id, code: "import time\ntime.sleep(2)\n'done'" }, PANEL));
    await pollUntil(() => (slots.inUse === 1 ? true : undefined), 15_000, 'the run holds the only slot');
    // With the one slot taken by session a, each of b's quiet jobs waits for it, one after the other.
    const list = track(call(sp.api, 'files.list', { sessionId: b.id }, PANEL));
    const check = track(call(sp.api, 'packages.check', { sessionId: b.id, packages: ['numpy'] }, PANEL));
    await pollUntil(() => (slots.waiting === 1 ? true : undefined), 15_000, "b's listing waits for a slot");
    expect(list.settled()).toBe(false);
    expect(check.settled()).toBe(false);
    expect((await busy.value).result).toBe("'done'");
    expect((await list.value).entries).toEqual([]);
    expect((await check.value).packages).toEqual([expect.objectContaining({ name: 'numpy' })]);
    expect(slots.inUse).toBe(0);
  });
});
