import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditFixture, start } from '../test-support/audit';
import type { AuditFixture } from '../test-support/audit';
import { runAudit } from './audit';

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

let fx: AuditFixture;
beforeEach(() => {
  fx = auditFixture();
  const store = fx.open();
  for (const code of ['print(1)', 'print("a,b")', 'print(3)']) {
    const row = store.begin(start({ code }));
    store.complete(row.id, { status: 'ok', stdout: 'x\n' });
  }
  store.begin(start({ code: 'still running' }));
});
afterEach(() => fx.cleanup());

async function audit(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runAudit(args, { home: fx.dir, stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('sandpit audit verify', () => {
  it('says the chain is intact and exits 0, while a core holds the log open', async () => {
    const { code, stdout } = await audit('verify');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Audit log OK: 4 rows, the hash chain is intact\.\n/);
  });

  it('names the first broken row and exits 1', async () => {
    const db = new DatabaseSync(fx.path);
    db.exec("UPDATE audit SET stdout = 'y' WHERE id = 2");
    db.close();
    const { code, stdout } = await audit('verify');
    expect(code).toBe(1);
    expect(stdout).toMatch(/^Audit log BROKEN at row 2: row 2 was changed after it completed/);
  });

  it('changes nothing (a running row stays running)', async () => {
    await audit('verify');
    await audit('export', '--format', 'jsonl');
    const db = new DatabaseSync(fx.path, { readOnly: true });
    expect(db.prepare("SELECT count(*) AS n FROM audit WHERE status = 'running'").get()).toMatchObject({ n: 1 });
    db.close();
  });

  it('exits 1 when there is no audit log, and 2 on bad arguments', async () => {
    const stdout = new Capture();
    const stderr = new Capture();
    expect(await runAudit(['verify'], { home: join(fx.dir, 'nowhere'), stdout, stderr })).toBe(1);
    expect(stderr.text).toMatch(/No audit log at .*nowhere\/audit\.db/);
    expect((await audit('verify', '--now')).code).toBe(2);
    expect((await audit('export', '--format', 'xml')).stderr).toMatch(/--format must be jsonl or csv, not "xml"/);
    expect((await audit('export')).code).toBe(2);
    expect((await audit('export', '--format', 'csv', '--status', 'fine')).stderr).toMatch(/--status/);
    expect((await audit('frobnicate')).code).toBe(2);
  });
});

describe('sandpit audit export', () => {
  it('writes JSONL to stdout, oldest first, filtered', async () => {
    const { code, stdout } = await audit('export', '--format', 'jsonl');
    expect(code).toBe(0);
    const rows = stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { id: number; code: string });
    expect(rows.map((r) => r.id)).toEqual([1, 2, 3, 4]);
    const filtered = await audit('export', '--format', 'jsonl', '--search', 'a,b');
    expect(filtered.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect((await audit('export', '--format', 'jsonl', '--from', '2000-01-01', '--to', '2999-12-31T00:00:00+01:00')).stdout.trimEnd().split('\n')).toHaveLength(4);
    expect((await audit('export', '--format', 'jsonl', '--to', '2000-01-01')).stdout).toBe('');
    const running = await audit('export', '--format', 'jsonl', '--status', 'running');
    expect(JSON.parse(running.stdout)).toMatchObject({ id: 4, code: 'still running' });
  });

  it('writes CSV to a 0600 file and says how many rows', async () => {
    const out = join(fx.dir, 'audit.csv');
    const { code, stdout } = await audit('export', '--format', 'csv', '--out', out);
    expect(code).toBe(0);
    expect(stdout).toBe(`Exported 4 rows to ${out}.\n`);
    const content = readFileSync(out, 'utf8');
    expect(content.split('\r\n')[0]).toMatch(/^Row,Kind of run,Started,/);
    expect(content).toContain('"print(""a,b"")"');
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });
});
