import { describe, expect, it } from 'vitest';
import { auditSummarySchema } from '../../shared/domain/audit';
import type { AuditRecord } from './audit-chain';
import { SUMMARY_CODE_CHARS, toAuditEntry, toAuditSummary } from './audit-record';

const SANDBOX = JSON.stringify({ isolation: 'standard', runtime: 'runc', network: 'none', language: 'python', sessionName: 'Python 1', unknown: 'dropped' });

function row(overrides: Record<string, unknown> = {}): AuditRecord {
  return {
    id: 7,
    method: 'sessions.execute',
    started_at: '2026-12-07T09:00:00.000Z',
    finished_at: '2026-12-07T09:00:01.000Z',
    transport: 'mcp-stdio',
    client: 'Claude Desktop',
    principal: null,
    session_id: 'ses-1',
    execution_id: 'exe-1',
    code: 'print(1)',
    status: 'ok',
    exit_code: null,
    duration_ms: 12,
    stdout: '1\n',
    stderr: '',
    stdout_truncated: 0,
    stderr_truncated: 0,
    artifacts: '[]',
    error_code: null,
    error_message: null,
    sandbox: SANDBOX,
    result: '1',
    open_seq: 10,
    open_hash: 'a'.repeat(64),
    close_seq: 11,
    close_hash: 'b'.repeat(64),
    ...overrides,
  } as unknown as AuditRecord;
}

describe('toAuditSummary', () => {
  it('is the row without its output, result and chain steps, its latest hash, no field left undefined, and what the contract allows', () => {
    const summary = toAuditSummary(row());
    expect(summary).toEqual({
      id: 7,
      method: 'sessions.execute',
      startedAt: '2026-12-07T09:00:00.000Z',
      finishedAt: '2026-12-07T09:00:01.000Z',
      transport: 'mcp-stdio',
      client: 'Claude Desktop',
      sessionId: 'ses-1',
      executionId: 'exe-1',
      code: 'print(1)',
      codeTruncated: false,
      status: 'ok',
      durationMs: 12,
      stdoutTruncated: false,
      stderrTruncated: false,
      artifacts: [],
      sandbox: { isolation: 'standard', runtime: 'runc', network: 'none', language: 'python', sessionName: 'Python 1' },
      hash: 'b'.repeat(64),
    });
    expect(Object.values(summary)).not.toContain(undefined);
    expect(auditSummarySchema.strict().safeParse(summary).success).toBe(true);
    // a row still running has only its opening hash
    expect(toAuditSummary(row({ close_seq: null, close_hash: null, finished_at: null })).hash).toBe('a'.repeat(64));
  });

  it('cuts long code and a long error message, and gives each caller its own sandbox object', () => {
    const summary = toAuditSummary(row({ code: 'x'.repeat(SUMMARY_CODE_CHARS + 5), status: 'error', error_message: 'e'.repeat(2_100) }));
    expect(summary.code).toHaveLength(SUMMARY_CODE_CHARS);
    expect(summary.codeTruncated).toBe(true);
    expect(summary.errorMessage).toBe(`${'e'.repeat(2_000)}…`);
    const first = toAuditEntry(row()).sandbox!;
    first.sessionName = 'changed by a caller';
    expect(toAuditEntry(row()).sandbox?.sessionName).toBe('Python 1');
    expect(toAuditSummary(row({ sandbox: '{"isolation": 42}' })).sandbox).toBeUndefined();
  });
});
