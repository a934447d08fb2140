import { copyFileSync, statSync } from 'node:fs';
import { DatabaseSync, StatementSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { auditFixture, start, testIdentity } from '../../test-support/audit';
import type { AuditFixture } from '../../test-support/audit';
import type { AuditStore } from './audit-store';

const DAY = 24 * 3_600_000;
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with its `this` through Reflect.apply
const execOriginal = DatabaseSync.prototype.exec;

let fx: AuditFixture;
beforeEach(() => {
  fx = auditFixture();
});
afterEach(() => fx.cleanup());

/** A second connection to the same file, as someone editing it behind Sandpit's back would open. */
function tamper(sql: string, ...params: Array<string | number | null>): void {
  const db = new DatabaseSync(fx.path);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

/** Rows 1–5: ok, error, failed, ok, ok. */
function fiveRows(store: AuditStore): number[] {
  const ids: number[] = [];
  for (const [i, status] of (['ok', 'error', 'failed', 'ok', 'ok'] as const).entries()) {
    const row = store.begin(start({ code: `print(${i})` }));
    store.complete(row.id, { status, stdout: `${i}\n`, exitCode: status === 'ok' ? 0 : 1, artifacts: [`${String(i).repeat(64)}`] });
    ids.push(row.id);
  }
  return ids;
}

describe('the audit store', () => {
  it('writes a running row first and completes it, chained, in a 0600 file', async () => {
    const store = fx.open();
    const row = store.begin(start({ executionId: 'run-abcdefgh' }));
    expect(row).toMatchObject({ id: 1, status: 'running', client: 'test-client', transport: 'mcp-http', principal: 'p1', sessionId: 'ses-1', code: 'print(1)' });
    expect(store.get(row.id)?.closeHash).toBeUndefined();
    expect((await store.verify())).toEqual({ ok: true, rows: 1, pruned: 0 });

    const done = store.complete(row.id, { status: 'ok', sessionId: 'ses-1', environment: 'env-1', exitCode: 0, durationMs: 12.4, stdout: 'hi\n', stderr: '', artifacts: ['a'.repeat(64)] });
    expect(done).toMatchObject({ status: 'ok', exitCode: 0, durationMs: 12, environment: 'env-1', artifacts: ['a'.repeat(64)] });
    const entry = store.get(row.id);
    expect(entry).toMatchObject({ stdout: 'hi\n', openSeq: 1, closeSeq: 2, executionId: 'run-abcdefgh' });
    expect(entry?.finishedAt).toBeDefined();
    expect((await store.verify())).toEqual({ ok: true, rows: 1, pruned: 0 });
    expect(statSync(fx.path).mode & 0o777).toBe(0o600);
  });

  it('uses WAL, and a write reaches the database file itself (a checkpoint, asked for within a second)', async () => {
    const store = fx.open();
    const db = new DatabaseSync(fx.path);
    try {
      expect(db.prepare('PRAGMA journal_mode').get()).toMatchObject({ journal_mode: 'wal' });
    } finally {
      db.close();
    }
    const row = store.begin(start());
    // Until the checkpoint the row is in the WAL only; after it, a copy of the database file alone has it.
    // Polled (bounded), not a fixed wait: on a loaded machine the syncer thread may get the CPU late.
    const copy = `${fx.path}.copy`;
    const inFileAlone = (): unknown => {
      copyFileSync(fx.path, copy);
      const alone = new DatabaseSync(copy);
      try {
        return alone.prepare("SELECT name FROM sqlite_master WHERE name = 'audit'").get() === undefined
          ? undefined
          : alone.prepare('SELECT id FROM audit WHERE id = ?').get(row.id);
      } finally {
        alone.close();
      }
    };
    const deadline = Date.now() + 30_000;
    while (inFileAlone() === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(inFileAlone()).toEqual({ id: row.id });
  });

  it('syncs off the event loop: no commit checkpoints on its own, and the checkpoint runs on another thread', async () => {
    const store = fx.open();
    const onThisThread: string[] = [];
    const exec = vi.spyOn(DatabaseSync.prototype, 'exec').mockImplementation(function (this: DatabaseSync, sql: string) {
      if (/checkpoint/i.test(sql)) onThisThread.push(sql);
      Reflect.apply(execOriginal, this, [sql]);
    });
    try {
      // ~600 runs' rows: far past the 1000 pages at which SQLite would checkpoint (and fsync) inside a commit.
      for (let i = 0; i < 600; i += 1) store.complete(store.begin(start({ code: `print(${'x'.repeat(2_000)})` })).id, { status: 'ok', stdout: 'y'.repeat(2_000) });
      expect(statSync(`${fx.path}-wal`).size).toBeGreaterThan(8 * 1024 * 1024);
      const row = store.begin(start({ code: 'print("the newest")' }));
      const copy = `${fx.path}.copy`;
      const inFileAlone = (): boolean => {
        copyFileSync(fx.path, copy);
        const alone = new DatabaseSync(copy);
        try {
          // Until a checkpoint even the table itself is in the WAL only.
          const table = alone.prepare("SELECT name FROM sqlite_master WHERE name = 'audit'").get();
          return table !== undefined && alone.prepare('SELECT id FROM audit WHERE id = ?').get(row.id) !== undefined;
        } catch (error) {
          // A copy taken while the syncer thread's checkpoint writes the file is torn: not there yet, look again.
          if (error instanceof Error && /malformed/.test(error.message)) return false;
          throw error;
        } finally {
          alone.close();
        }
      };
      expect(inFileAlone()).toBe(false);
      const deadline = Date.now() + 30_000;
      while (!inFileAlone() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(inFileAlone()).toBe(true);
      expect(onThisThread).toEqual([]);
    } finally {
      exec.mockRestore();
    }
  });

  it('checks a long log in slices on its own snapshot: writes go on meanwhile, and the answer is that of the snapshot', async () => {
    const store = fx.open();
    for (let i = 0; i < 3_000; i += 1) store.complete(store.begin(start({ code: `print(${i})` })).id, { status: 'ok' });
    const order: string[] = [];
    const checking = store.verify().then((result) => {
      order.push('checked');
      return result;
    });
    setImmediate(() => {
      order.push(`wrote row ${store.begin(start({ code: 'print("during the check")' })).id}`);
    });
    expect(await checking).toEqual({ ok: true, rows: 3_000, pruned: 0 });
    expect(order).toEqual(['wrote row 3001', 'checked']);
    // Asked twice at once: one check, one answer.
    const [a, b] = [store.verify(), store.verify()];
    expect(a).toBe(b);
    expect(await a).toEqual({ ok: true, rows: 3_001, pruned: 0 });
  });

  it('refuses to complete a row twice', () => {
    const store = fx.open();
    const row = store.begin(start());
    store.complete(row.id, { status: 'ok' });
    expect(() => store.complete(row.id, { status: 'error' })).toThrow(/already completed/);
  });

  it('chains rows that complete out of order', async () => {
    const store = fx.open();
    const a = store.begin(start({ code: 'a' }));
    const b = store.begin(start({ code: 'b' }));
    store.complete(b.id, { status: 'ok' });
    const c = store.begin(start({ code: 'c' }));
    store.complete(a.id, { status: 'timeout' });
    store.complete(c.id, { status: 'ok' });
    expect((await store.verify())).toEqual({ ok: true, rows: 3, pruned: 0 });
    expect(store.get(a.id)).toMatchObject({ openSeq: 1, closeSeq: 5 });
  });

  it('keeps odd text exactly: lone surrogates, NUL, emoji, very long output (capped with a marker)', async () => {
    const store = fx.open();
    const row = store.begin(start({ code: 'x = "\ud800"\u0000 🦀' }));
    store.complete(row.id, { status: 'ok', stdout: `${'é'.repeat(40_000)}`, stderr: '\udfff' });
    expect((await store.verify())).toEqual({ ok: true, rows: 1, pruned: 0 });
    const entry = store.get(row.id);
    expect(entry?.code).toBe('x = "\ufffd"\u0000 🦀');
    expect(entry?.stdoutTruncated).toBe(true);
    expect(entry?.stdout).toMatch(/\[… audit log: output truncated, kept 65536 of 80000 bytes\]$/);
    expect(entry?.stderrTruncated).toBe(false);
  });

  it('reads nothing back for a run while it wrote last, and reads the file again once another connection has written', async () => {
    const store = fx.open();
    store.complete(store.begin(start({ code: 'first' })).id, { status: 'ok' });
    const executed: string[] = [];
    const spies = (['get', 'run', 'all'] as const).map((method) => {
      // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its `this` through Reflect.apply
      const original = StatementSync.prototype[method] as (...args: unknown[]) => unknown;
      return vi.spyOn(StatementSync.prototype, method).mockImplementation(function (this: StatementSync, ...args: unknown[]) {
        executed.push(this.sourceSQL);
        return Reflect.apply(original, this, args);
      } as never);
    });
    const reads = (): string[] => executed.filter((sql) => /^SELECT|RETURNING/.test(sql));
    try {
      const second = store.begin(start({ code: 'second' }));
      store.complete(second.id, { status: 'ok', stdout: 'two\n' });
      expect(second.id).toBe(2);
      expect(reads()).toEqual([]);
      // Another process commits (here: a note in the meta table): the next run reads the head and its row again.
      tamper("INSERT INTO audit_meta (key, value) VALUES ('note', 'written elsewhere')");
      executed.length = 0;
      const third = store.begin(start({ code: 'third' }));
      expect(reads()).toContain('SELECT value FROM audit_meta WHERE key = ?');
      tamper("INSERT INTO audit_meta (key, value) VALUES ('note2', 'written elsewhere')");
      executed.length = 0;
      store.complete(third.id, { status: 'ok' });
      expect(reads()).toContain('SELECT * FROM audit WHERE id = ?');
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(store.get(2)).toMatchObject({ code: 'second', stdout: 'two\n', status: 'ok', openSeq: 3, closeSeq: 4 });
    expect(await store.verify()).toEqual({ ok: true, rows: 3, pruned: 0 });
  });

  it('a running row edited by another connection between its start and its completion is caught, not hashed over', async () => {
    const store = fx.open();
    fiveRows(store);
    const row = store.begin(start({ code: 'print("what ran")' }));
    tamper("UPDATE audit SET code = 'print(\"something else\")' WHERE id = ?", row.id);
    store.complete(row.id, { status: 'ok' });
    // The completion read the edited row back (another connection had written): its open entry no longer matches.
    expect(store.get(row.id)?.code).toBe('print("something else")');
    const result = await store.verify();
    expect(result).toMatchObject({ ok: false, brokenAt: row.id });
    expect(result.reason).toMatch(/was changed after it was written/);
  });

  it('two stores on one file (two processes) interleave and keep one chain', async () => {
    const one = fx.open();
    const two = fx.open();
    const a = one.begin(start({ code: 'a' }));
    const b = two.begin(start({ code: 'b' }));
    one.complete(a.id, { status: 'ok' });
    const c = one.begin(start({ code: 'c' }));
    two.complete(b.id, { status: 'ok' });
    one.complete(c.id, { status: 'ok' });
    expect((await one.verify())).toEqual({ ok: true, rows: 3, pruned: 0 });
  });
});

describe('verify', () => {
  it.each([
    ['the code', "UPDATE audit SET code = 'print(42)' WHERE id = 3", /row 3 was changed after it was written/],
    ['the status', "UPDATE audit SET status = 'ok' WHERE id = 3", /row 3 was changed after it completed/],
    ['the output', "UPDATE audit SET stdout = 'nothing' WHERE id = 3", /row 3 was changed after it completed/],
    ['the exit code', 'UPDATE audit SET exit_code = 0 WHERE id = 3', /row 3 was changed after it completed/],
    ['the client', "UPDATE audit SET client = 'someone-else' WHERE id = 3", /row 3 was changed after it was written/],
    ['the finish time', "UPDATE audit SET finished_at = '2000-01-01T00:00:00.000Z' WHERE id = 3", /row 3 was changed after it completed/],
    ['the type of a number', "UPDATE audit SET exit_code = 'one' WHERE id = 3", /row 3 was changed after it completed/],
    ['the artifact list', "UPDATE audit SET artifacts = '[]' WHERE id = 3", /row 3 was changed after it completed/],
    ['its own hash', "UPDATE audit SET close_hash = (CASE WHEN substr(close_hash, 1, 1) = 'f' THEN 'e' ELSE 'f' END) || substr(close_hash, 2) WHERE id = 3", /row 3 was changed after it completed/],
  ])('names the row when %s of a completed row is edited', async (_what, sql, reason) => {
    const store = fx.open();
    fiveRows(store);
    expect((await store.verify()).ok).toBe(true);
    tamper(sql);
    const result = await store.verify();
    expect(result).toMatchObject({ ok: false, brokenAt: 3 });
    expect(result.reason).toMatch(reason);
  });

  it('keeps a background run\'s id in the chain: its row says so from the start, and changing, clearing or adding one breaks the row', async () => {
    const store = fx.open();
    fiveRows(store);
    const row = store.begin(start({ code: 'long work', backgroundRun: 'run-abcdefgh' }));
    expect(store.get(row.id)?.backgroundRun).toBe('run-abcdefgh');
    store.complete(row.id, { status: 'ok' });
    expect(store.list({ limit: 1 }).rows[0]?.backgroundRun).toBe('run-abcdefgh');
    expect((await store.verify()).ok).toBe(true);
    for (const sql of [`UPDATE audit SET background_run = 'run-zzzzzzzz' WHERE id = ${row.id}`, `UPDATE audit SET background_run = NULL WHERE id = ${row.id}`]) {
      tamper(sql);
      expect(await store.verify()).toMatchObject({ ok: false, brokenAt: row.id });
      tamper(`UPDATE audit SET background_run = 'run-abcdefgh' WHERE id = ${row.id}`);
      expect((await store.verify()).ok).toBe(true);
    }
    tamper(`UPDATE audit SET background_run = 'run-abcdefgh' WHERE id = 2`);
    expect(await store.verify()).toMatchObject({ ok: false, brokenAt: 2 });
  });

  it('keeps the sandbox a run had (isolation, runtime) in the chain: adding, changing or clearing it breaks the row', async () => {
    const store = fx.open();
    fiveRows(store);
    const row = store.begin(start({ code: 'strong' }));
    store.complete(row.id, { status: 'ok', sandbox: { isolation: 'strong', runtime: 'runsc-nonet', network: 'none' } });
    expect(store.get(row.id)?.sandbox).toEqual({ isolation: 'strong', runtime: 'runsc-nonet', network: 'none' });
    expect((await store.verify()).ok).toBe(true);
    for (const sql of [
      `UPDATE audit SET sandbox = '{"isolation":"standard","runtime":"runc"}' WHERE id = ${row.id}`,
      `UPDATE audit SET sandbox = NULL WHERE id = ${row.id}`,
    ]) {
      tamper(sql);
      expect((await store.verify())).toMatchObject({ ok: false, brokenAt: row.id });
      tamper(`UPDATE audit SET sandbox = ? WHERE id = ${row.id}`, JSON.stringify({ isolation: 'strong', runtime: 'runsc-nonet', network: 'none' }));
      expect((await store.verify()).ok).toBe(true);
    }
    // A row from before the column existed (null there) was hashed without it, and still checks out; giving it one breaks it.
    tamper(`UPDATE audit SET sandbox = '{"isolation":"strong"}' WHERE id = 2`);
    expect((await store.verify())).toMatchObject({ ok: false, brokenAt: 2 });
  });

  it('opens an audit log written before the sandbox column existed, adds the column, and its rows still check out', async () => {
    const first = fx.open();
    fiveRows(first);
    first.close();
    tamper('ALTER TABLE audit DROP COLUMN sandbox');
    tamper('PRAGMA user_version = 1');
    const reopened = fx.open();
    expect((await reopened.verify())).toEqual({ ok: true, rows: 5, pruned: 0 });
    const row = reopened.begin(start({ code: 'after' }));
    reopened.complete(row.id, { status: 'ok', sandbox: { isolation: 'standard', runtime: 'runc' } });
    expect((await reopened.verify())).toEqual({ ok: true, rows: 6, pruned: 0 });
  });

  it('keeps a replayed run\'s link to its original (replay_of) and the last expression\'s value in the chain', async () => {
    const store = fx.open();
    const [original] = fiveRows(store);
    const replay = store.begin({ ...start({ code: 'print(0)' }), replayOf: original! });
    expect(replay.replayOf).toBe(original);
    store.complete(replay.id, { status: 'ok', stdout: '0\n', result: "'x'" });
    expect(store.get(replay.id)).toMatchObject({ replayOf: original, result: "'x'" });
    expect(store.get(original!)?.replays).toEqual([replay.id]);
    expect((await store.verify()).ok).toBe(true);
    for (const sql of [`UPDATE audit SET replay_of = 3 WHERE id = ${replay.id}`, `UPDATE audit SET replay_of = NULL WHERE id = ${replay.id}`, `UPDATE audit SET result = 'y' WHERE id = ${replay.id}`]) {
      tamper(sql);
      expect(await store.verify()).toMatchObject({ ok: false, brokenAt: replay.id });
      tamper(`UPDATE audit SET replay_of = ?, result = ? WHERE id = ${replay.id}`, original!, "'x'");
      expect((await store.verify()).ok).toBe(true);
    }
    // Claiming an older row was a replay breaks that row.
    tamper(`UPDATE audit SET replay_of = 1 WHERE id = 2`);
    expect(await store.verify()).toMatchObject({ ok: false, brokenAt: 2 });
  });

  it('opens a version 2 log (no replay_of, no result), adds the columns, and its rows still check out', async () => {
    const first = fx.open();
    fiveRows(first);
    first.close();
    tamper('DROP INDEX audit_replay_of');
    tamper('ALTER TABLE audit DROP COLUMN replay_of');
    tamper('ALTER TABLE audit DROP COLUMN result');
    tamper('PRAGMA user_version = 2');
    const reopened = fx.open();
    expect(await reopened.verify()).toEqual({ ok: true, rows: 5, pruned: 0 });
    const row = reopened.begin({ ...start({ code: 'again' }), replayOf: 1 });
    reopened.complete(row.id, { status: 'ok', result: '1' });
    expect(reopened.get(row.id)).toMatchObject({ replayOf: 1, result: '1' });
    expect(await reopened.verify()).toEqual({ ok: true, rows: 6, pruned: 0 });
  });

  it('keeps the shared folders a run had in the chain, and opens a version 3 log by adding the column', async () => {
    const first = fx.open();
    fiveRows(first);
    first.close();
    tamper('ALTER TABLE audit DROP COLUMN folders');
    tamper('PRAGMA user_version = 3');
    const store = fx.open();
    expect((await store.verify())).toEqual({ ok: true, rows: 5, pruned: 0 });
    const folders = [
      { name: 'data', hostPath: '/home/me/data', mountPath: '/workspace/shared/data', mode: 'ro' as const },
      { name: 'out', hostPath: '/home/me/out', mountPath: '/workspace/out', mode: 'rw' as const },
    ];
    const row = store.begin(start({ code: 'with folders' }));
    store.complete(row.id, { status: 'ok', folders });
    expect(store.get(row.id)?.folders).toEqual(folders);
    expect((await store.verify())).toEqual({ ok: true, rows: 6, pruned: 0 });
    // Turning a read-write folder into a read-only one after the fact breaks the row.
    tamper(`UPDATE audit SET folders = ? WHERE id = ${row.id}`, JSON.stringify(folders.map((f) => ({ ...f, mode: 'ro' }))));
    expect((await store.verify())).toMatchObject({ ok: false, brokenAt: row.id });
    tamper(`UPDATE audit SET folders = NULL WHERE id = ${row.id}`);
    expect((await store.verify())).toMatchObject({ ok: false, brokenAt: row.id });
  });

  it('catches a completed row turned back into running', async () => {
    const store = fx.open();
    fiveRows(store);
    tamper("UPDATE audit SET status = 'running', close_seq = NULL, close_hash = NULL WHERE id = 2");
    const result = await store.verify();
    expect(result).toMatchObject({ ok: false, brokenAt: 3 });
    expect(result.reason).toMatch(/missing just before row 3/);
  });

  it('catches a deleted row in the middle, naming the row after the gap', async () => {
    const store = fx.open();
    fiveRows(store);
    tamper('DELETE FROM audit WHERE id = 3');
    const result = await store.verify();
    expect(result).toMatchObject({ ok: false, brokenAt: 4 });
    expect(result.reason).toMatch(/chain entries 5–6 are missing just before row 4: a row was deleted/);
  });

  it('catches deleted newest rows (the head points past them)', async () => {
    const store = fx.open();
    fiveRows(store);
    tamper('DELETE FROM audit WHERE id >= 4');
    const result = await store.verify();
    expect(result).toMatchObject({ ok: false, brokenAt: 3 });
    expect(result.reason).toMatch(/newest 4 chain entries are missing/);
  });

  it('catches a deleted running row', async () => {
    const store = fx.open();
    const running = store.begin(start());
    fiveRows(store);
    tamper('DELETE FROM audit WHERE id = ?', running.id);
    expect((await store.verify())).toMatchObject({ ok: false, brokenAt: 2 });
  });

  it('catches an edit of a running row\'s code', async () => {
    const store = fx.open();
    const running = store.begin(start());
    tamper("UPDATE audit SET code = 'harmless()' WHERE id = ?", running.id);
    expect((await store.verify())).toMatchObject({ ok: false, brokenAt: running.id });
  });

  it('reports an empty log as intact', async () => {
    expect((await fx.open().verify())).toEqual({ ok: true, rows: 0, pruned: 0 });
  });
});

describe('start-up after a crash', () => {
  it('turns rows left running by a dead core into interrupted, chained; rows of live cores stay running', async () => {
    const crashed = fx.open({ identity: testIdentity(false) });
    const abandoned = crashed.begin(start({ code: 'while True: pass' }));
    const live = fx.open();
    const stillRunning = live.begin(start({ code: 'time.sleep(5)' }));

    const next = fx.open();
    expect(next.get(abandoned.id)).toMatchObject({ status: 'interrupted', errorCode: 'INTERRUPTED_BY_RESTART' });
    expect(next.get(abandoned.id)?.errorMessage).toMatch(/stopped .* before this call finished/);
    expect(next.get(abandoned.id)?.durationMs).toBeUndefined();
    expect(next.get(stillRunning.id)?.status).toBe('running');
    expect((await next.verify())).toEqual({ ok: true, rows: 2, pruned: 0 });
  });

  it('closes its own running rows as interrupted on close', async () => {
    const store = fx.open();
    const row = store.begin(start());
    store.close();
    const next = fx.open();
    expect(next.get(row.id)).toMatchObject({ status: 'interrupted', errorCode: 'SHUTDOWN' });
    expect((await next.verify()).ok).toBe(true);
    expect(() => store.begin(start())).toThrow(/closed/);
  });
});

describe('retention', () => {
  const now = new Date('2030-06-01T00:00:00.000Z');
  const daysAgo = (days: number): Date => new Date(now.getTime() - days * DAY);

  function row(store: AuditStore, startedDaysAgo: number, finishedDaysAgo: number | undefined): number {
    const opened = store.begin(start({ startedAt: daysAgo(startedDaysAgo), code: `age ${startedDaysAgo}` }));
    if (finishedDaysAgo !== undefined) store.complete(opened.id, { status: 'ok', finishedAt: daysAgo(finishedDaysAgo) });
    return opened.id;
  }

  it('prunes old rows, keeps the anchor, and verify still holds', async () => {
    const store = fx.open({ retentionDays: 30 });
    row(store, 100, 100);
    row(store, 90, 90);
    const recent = row(store, 5, 5);
    expect(store.prune(now)).toBe(2);
    expect((await store.verify())).toEqual({ ok: true, rows: 1, pruned: 2 });
    expect(store.list({ limit: 10 }).rows.map((r) => r.id)).toEqual([recent]);
    // A later row chains onto the rest as before.
    row(store, 1, 0);
    expect((await store.verify())).toEqual({ ok: true, rows: 2, pruned: 2 });
    // After pruning, deleting the oldest remaining row is still caught.
    tamper('DELETE FROM audit WHERE id = ?', recent);
    expect((await store.verify()).ok).toBe(false);
  });

  it('stops at a row still running (or finished recently) and never cuts through one', async () => {
    const store = fx.open({ retentionDays: 30 });
    row(store, 100, 100);
    const longRun = row(store, 99, undefined);
    row(store, 98, 98);
    expect(store.prune(now)).toBe(1);
    expect((await store.verify())).toEqual({ ok: true, rows: 2, pruned: 1 });
    store.complete(longRun, { status: 'ok', finishedAt: daysAgo(1) });
    expect(store.prune(now)).toBe(0);
    expect((await store.verify())).toEqual({ ok: true, rows: 2, pruned: 1 });
  });

  it('keeps everything with 0 days, and applies a new setting at once', async () => {
    const store = fx.open();
    row(store, 4_000, 4_000);
    expect(store.prune()).toBe(0);
    store.setRetentionDays(365);
    expect(store.list({ limit: 10 }).rows).toEqual([]);
    expect((await store.verify())).toEqual({ ok: true, rows: 0, pruned: 1 });
  });

  it('does not prune past a tampered row (pruning cannot hide an edit)', async () => {
    const store = fx.open({ retentionDays: 30 });
    row(store, 100, 100);
    const edited = row(store, 90, 90);
    row(store, 80, 80);
    tamper("UPDATE audit SET code = 'other' WHERE id = ?", edited);
    expect(store.prune(now)).toBe(1);
    expect((await store.verify())).toMatchObject({ ok: false, brokenAt: edited });
  });
});
