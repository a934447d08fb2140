import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { testIdentity } from '../../test-support/audit';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { call } from '../api/dispatcher';
import { pollUntil, withTimeout } from '../util/with-timeout';
import { AuditStore } from './audit-store';

const CHILD = join(import.meta.dirname, '../../test-support/audit-crash-child.mts');

describe('the audit log across a crash (SIGKILL mid-stream)', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-audit-crash-'));
  });
  afterAll(async () => {
    // A core started and disposed here reaps the killed child's containers and volumes.
    const next = await startTestSandpit();
    await next.cleanup();
    await rm(home, { recursive: true, force: true });
  });

  it('keeps every row a client was given, completed; a new store interrupts the rest and the chain holds', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      env: { ...process.env, SANDPIT_HOME: home, SANDPIT_TEST_IMAGE: inject('images').python! },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buffer = '';
    let ready = false;
    const returned: number[] = [];
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const message = JSON.parse(line) as { ready?: boolean; auditId?: number };
        if (message.ready) ready = true;
        if (message.auditId !== undefined) returned.push(message.auditId);
      }
    });
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    try {
      await pollUntil(() => (ready ? true : undefined), 90_000, 'the child core starting its sessions');
      await pollUntil(() => (returned.length >= 150 ? true : undefined), 90_000, '150 audited results');
    } finally {
      child.kill('SIGKILL');
      await withTimeout(exited, 15_000, 'the killed child closing its output');
    }
    expect(child.signalCode).toBe('SIGKILL');

    const path = join(home, 'audit.db');
    const raw = new DatabaseSync(path);
    try {
      expect(raw.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
      // The next start: the killed core's journal goes into the table, and what it left running is interrupted.
      const store = AuditStore.open({ path, identity: testIdentity() });
      try {
        const rowOf = raw.prepare('SELECT id, status, close_hash, client, transport, principal FROM audit WHERE id = ?');
        for (const id of returned) {
          const row = rowOf.get(id) as { status: string; close_hash: string | null } | undefined;
          expect(row, `row ${id} was returned to a client`).toBeDefined();
          // Completed before its result went out: never found running, never interrupted by the next start.
          expect(row?.status, `row ${id}`).toBe('ok');
          expect(row?.close_hash, `row ${id}`).toMatch(/^[a-f0-9]{64}$/);
        }
        expect(rowOf.get(returned[0]!)).toMatchObject({ client: 'crash-child', transport: 'mcp-http', principal: 'crash-principal' });
        const interrupted = raw.prepare("SELECT id FROM audit WHERE error_code = 'INTERRUPTED_BY_RESTART'").all().map((r) => Number(r.id));
        // At least the sleeper: the row was written before its run started.
        expect(interrupted.length).toBeGreaterThanOrEqual(1);
        for (const id of interrupted) expect(store.get(id)).toMatchObject({ status: 'interrupted' });
        expect(raw.prepare("SELECT count(*) AS n FROM audit WHERE status = 'running'").get()).toEqual({ n: 0 });
        const verified = await store.verify();
        expect(verified).toMatchObject({ ok: true });
        expect(verified.rows).toBeGreaterThanOrEqual(returned.length + interrupted.length);
      } finally {
        store.close();
      }
    } finally {
      raw.close();
    }
  });
});

describe('audit rows from the API surfaces', () => {
  let sp: TestSandpit;
  beforeAll(async () => {
    sp = await startTestSandpit();
  });
  afterAll(async () => sp?.cleanup());

  it('records the client name, transport and principal of an MCP call, its output and the session', async () => {
    const context = { transport: 'mcp-http', client: 'test-client', principal: 'p' } as const;
    const appended: Array<{ id: number; status: string }> = [];
    const off = sp.bus.on('audit.appended', (row) => appended.push(row));
    try {
      const result = await call(sp.api, 'sessions.execute', { code: 'print(6 * 7)' }, context);
      expect(result.stdout).toBe('42\n');
      expect(result.auditId).toBeDefined();
      const row = sp.audit.get(result.auditId!);
      expect(row).toMatchObject({
        method: 'sessions.execute',
        client: 'test-client',
        transport: 'mcp-http',
        principal: 'p',
        sessionId: result.sessionId,
        executionId: result.executionId,
        code: 'print(6 * 7)',
        status: 'ok',
        stdout: '42\n',
      });
      expect(appended.filter((r) => r.id === result.auditId).map((r) => r.status)).toEqual(['running', 'ok']);

      const command = await call(sp.api, 'sessions.runCommand', { sessionId: result.sessionId, command: 'echo hi; exit 3' }, { transport: 'rest', client: 'rest' });
      expect(sp.audit.get(command.auditId!)).toMatchObject({ method: 'sessions.runCommand', transport: 'rest', client: 'rest', status: 'error', exitCode: 3, stdout: 'hi\n' });
      expect((await sp.audit.verify())).toMatchObject({ ok: true });
      const listed = await call(sp.api, 'audit.list', { filters: { client: 'test-client' } }, { transport: 'ipc', client: 'panel' });
      expect(listed.rows.map((r) => r.id)).toEqual([result.auditId]);
      const mine = await call(sp.api, 'audit.list', {}, context);
      expect(mine.rows.map((r) => r.id)).toEqual([result.auditId]);
    } finally {
      off();
    }
  });
});
