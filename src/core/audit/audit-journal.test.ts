// The audit log written through its journal (the core's way: it is the log's only writer). The same log, chain and
// answers as with a commit per step (audit-store.test.ts), with each step durable once its journal line is written.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync, StatementSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { auditFixture, start, testIdentity } from '../../test-support/audit';
import type { AuditFixture } from '../../test-support/audit';
import { silentLogger } from '../log';
import type { Logger } from '../log';
import { AuditJournal, journalPath } from './audit-journal';
import { JournalWriter } from './audit-journal-writer';
import type { JournalWriterDeps } from './audit-journal-writer';
import { openAuditDatabase } from './audit-database';

let fx: AuditFixture;
beforeEach(() => {
  fx = auditFixture({ soleWriter: true });
});
afterEach(() => {
  vi.restoreAllMocks();
  fx.cleanup();
});

/** Rows in the table, read by a connection of its own (another process would see the same). */
function tableRows(path: string): Array<{ id: number; status: string }> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare('SELECT id, status FROM audit ORDER BY id').all() as Array<{ id: number; status: string }>;
  } finally {
    db.close();
  }
}

/** A sole-writer store in a child process that writes `script`'s rows and is then killed (SIGKILL) at once. */
function killedWriter(path: string, body: string): string[] {
  const store = join(import.meta.dirname, 'audit-store.ts');
  const support = join(import.meta.dirname, '../../test-support/audit.ts');
  const script = `
    import { AuditStore } from ${JSON.stringify(store)};
    import { start, testIdentity } from ${JSON.stringify(support)};
    const store = AuditStore.open({ path: ${JSON.stringify(path)}, identity: testIdentity(), soleWriter: true });
    const said = [];
    ${body}
    process.stdout.write(said.join('\\n') + '\\n', () => process.kill(process.pid, 'SIGKILL'));
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  expect(r.signal).toBe('SIGKILL');
  return r.stdout.trim().split('\n');
}

describe('the audit log written through its journal', () => {
  it('commits nothing on the event loop for a run: its steps are journal lines, in the table for every read and soon on their own', async () => {
    const store = fx.open();
    const onThisThread: string[] = [];
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its `this` through Reflect.apply
    const original = StatementSync.prototype.run as (...args: unknown[]) => unknown;
    vi.spyOn(StatementSync.prototype, 'run').mockImplementation(function (this: StatementSync, ...args: unknown[]) {
      onThisThread.push(this.sourceSQL);
      return Reflect.apply(original, this, args);
    } as never);
    const row = store.begin(start({ executionId: 'run-journal1' }));
    const done = store.complete(row.id, { status: 'ok', stdout: 'hi\n', exitCode: 0 });
    expect(onThisThread).toEqual([]);
    expect(done).toMatchObject({ id: row.id, status: 'ok', exitCode: 0 });
    // The step is in the journal at once...
    expect(readFileSync(journalPath(fx.path), 'utf8')).toContain('"run-journal1"');
    vi.restoreAllMocks();
    // ...and in the table soon, without a read asking (another connection sees it).
    const deadline = Date.now() + 10_000;
    while (tableRows(fx.path).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(tableRows(fx.path)).toEqual([{ id: row.id, status: 'ok' }]);
    // A read sees every step written before it; the chain is whole; the journal is emptied once the table has all.
    const next = store.begin(start({ code: 'print(2)' }));
    expect(store.get(next.id)).toMatchObject({ status: 'running', code: 'print(2)', openSeq: 3 });
    expect(await store.verify()).toEqual({ ok: true, rows: 2, pruned: 0 });
    expect(readFileSync(journalPath(fx.path), 'utf8').trim().split('\n')).toHaveLength(1);
    expect(() => store.complete(row.id, { status: 'error' })).toThrow(/already completed/);
    store.close();
    expect(existsSync(journalPath(fx.path))).toBe(false);
  });

  it('keeps every step of a writer killed before the table had them: the next start applies its journal, the rest interrupted', async () => {
    // Half the rows reach the table (a read waits for them: the journal is then emptied), the other half not.
    const said = killedWriter(fx.path, `
      for (let i = 0; i < 50; i += 1) {
        const row = store.begin(start({ code: 'print(' + i + ')' }));
        if (i % 2 === 0) store.complete(row.id, { status: 'ok', stdout: 'out ' + i });
        said.push(row.id);
        if (i === 24) store.list({ limit: 1 });
      }
    `);
    expect(said).toHaveLength(50);
    expect(existsSync(journalPath(fx.path))).toBe(true);
    const next = fx.open();
    const rows = next.list({ limit: 100 }).rows;
    expect(rows).toHaveLength(50);
    expect(rows.filter((r) => r.status === 'ok')).toHaveLength(25);
    expect(rows.filter((r) => r.status === 'interrupted')).toHaveLength(25);
    expect(next.get(Number(said[48]))).toMatchObject({ status: 'ok', stdout: 'out 48' });
    expect(await next.verify()).toEqual({ ok: true, rows: 50, pruned: 0 });
  });

  it('takes a journal edited while Sandpit was stopped only up to the edit: the rest is kept aside and nothing forged gets in', async () => {
    killedWriter(fx.path, `
      for (let i = 0; i < 4; i += 1) { const row = store.begin(start({ code: 'print(' + i + ')' })); store.complete(row.id, { status: 'ok', stdout: 'out ' + i }); said.push(row.id); }
    `);
    const path = journalPath(fx.path);
    // The third row's output is changed in the journal (its close step no longer matches its hash).
    writeFileSync(path, readFileSync(path, 'utf8').replace('"out 2"', '"forged"'));
    const warn = vi.fn();
    const log: Logger = { ...silentLogger, warn, child: () => log };
    const next = fx.open({ log });
    expect(next.list({ limit: 10 }).rows.map((r) => [r.id, r.status])).toEqual([
      [3, 'interrupted'],
      [2, 'ok'],
      [1, 'ok'],
    ]);
    expect(next.get(3)?.stdout).toBe('');
    expect(await next.verify()).toEqual({ ok: true, rows: 3, pruned: 0 });
    // The edited journal is kept aside; the one at its place now is the new store's own (nothing in it but its writer).
    expect(readdirSync(fx.dir).filter((n) => n.startsWith('audit.db.pending.rejected-'))).toHaveLength(1);
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/applied only up to a step that does not check out/), expect.objectContaining({ reason: 'the completion of row 3 does not match its hash', applied: 5 }));
  });

  it("leaves a live writer's journal alone: a second store on the file writes to the table and applies nothing of it", async () => {
    const first = fx.open();
    first.begin(start({ code: 'first' }));
    const before = readFileSync(journalPath(fx.path), 'utf8');
    const second = fx.open();
    expect(readFileSync(journalPath(fx.path), 'utf8')).toBe(before);
    expect(second.list({ limit: 10 }).rows).toEqual([]);
    first.close();
    expect((await second.verify()).ok).toBe(true);
  });
});

describe('the journal writer when the syncer thread lags or is gone', () => {
  function writer(syncer: JournalWriterDeps['syncer']): { w: JournalWriter; db: DatabaseSync } {
    const db = openAuditDatabase(fx.path);
    const w = new JournalWriter({ db, journal: new AuditJournal(journalPath(fx.path), testIdentity()), syncer, owner: testIdentity() });
    return { w, db };
  }

  it('applies each batch itself when there is no thread, and a read waits for a lagging thread no longer than its wait', () => {
    const { w, db } = writer({ apply: () => false, applied: () => 0, waitApplied: () => false });
    try {
      const row = w.begin(start());
      w.complete(Number(row.id), { status: 'ok' });
      w.settle();
      expect(db.prepare('SELECT status FROM audit').all()).toEqual([{ status: 'ok' }]);
      w.close();
    } finally {
      db.close();
    }
  });

  it('applies what a thread that never answers was sent, once, however often it is then applied again', () => {
    const sent: Array<{ seq: number }> = [];
    const { w, db } = writer({ apply: (_s, seq) => (sent.push({ seq }), true), applied: () => 0, waitApplied: () => false });
    try {
      const a = w.begin(start({ code: 'a' }));
      w.complete(Number(a.id), { status: 'ok' });
      w.settle();
      w.applyHere(2);
      w.settle();
      expect(sent.length).toBeGreaterThan(0);
      expect(db.prepare('SELECT id, status, close_seq FROM audit').all()).toEqual([{ id: 1, status: 'ok', close_seq: 2 }]);
      expect(JSON.parse((db.prepare("SELECT value FROM audit_meta WHERE key = 'head'").get() as { value: string }).value)).toMatchObject({ seq: 2 });
      w.close();
    } finally {
      db.close();
    }
  });
});
