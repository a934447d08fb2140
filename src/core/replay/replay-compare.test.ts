import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/domain/audit';
import { compareRuns } from '../../shared/replay-compare';
import { replayCall } from './replay-plan';

function entry(change: Partial<AuditEntry>): AuditEntry {
  return {
    id: 1,
    method: 'sessions.execute',
    startedAt: '2030-01-01T00:00:00.000Z',
    transport: 'ipc',
    code: 'print(1)',
    status: 'ok',
    stdout: '1\n',
    stderr: '',
    stdoutTruncated: false,
    stderrTruncated: false,
    artifacts: [],
    openSeq: 1,
    openHash: 'a'.repeat(64),
    ...change,
  };
}

describe('compareRuns', () => {
  it('matches only when the status and every output are exactly the same', () => {
    expect(compareRuns(entry({}), entry({ id: 2, durationMs: 999, startedAt: 'later' }))).toEqual({ outcome: 'matched', diffs: [] });
    const differs = compareRuns(entry({ stdout: 'at 12:00:01\n' }), entry({ stdout: 'at 12:00:02\n' }));
    expect(differs.outcome).toBe('differs');
    expect(differs.diffs).toEqual([
      { part: 'stdout', lines: [{ op: 'removed', text: 'at 12:00:01' }, { op: 'added', text: 'at 12:00:02' }] },
    ]);
  });

  it('names each part that changed: how it ended, the value, the error', () => {
    const parts = compareRuns(entry({ result: '1' }), entry({ status: 'error', result: undefined, errorMessage: 'NameError: x' })).diffs.map((d) => d.part);
    expect(parts).toEqual(['status', 'result', 'error']);
  });
});

describe('replayCall', () => {
  it('repeats each kind of row with its recorded input; run_file writes the recorded file first', () => {
    expect(replayCall(entry({ method: 'sessions.runCommand', code: 'ls' }), 's')).toEqual([{ method: 'sessions.runCommand', input: { sessionId: 's', command: 'ls' }, audited: true }]);
    expect(replayCall(entry({ method: 'packages.install', code: 'numpy\nrequests==2' }), 's')[0]!.input).toEqual({ sessionId: 's', packages: ['numpy', 'requests==2'] });
    expect(replayCall(entry({ method: 'sessions.runFile', code: 'a.py', fileContent: 'print(2)\n' }), 's')).toEqual([
      { method: 'files.write', input: { sessionId: 's', path: 'a.py', content: 'print(2)\n' }, audited: false },
      { method: 'sessions.runFile', input: { sessionId: 's', path: 'a.py' }, audited: true },
    ]);
  });
});
