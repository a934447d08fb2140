import { describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../shared/domain/execution';
import { executionText, toExecutionOutput } from './execution-output';

const BASE: ExecutionResult = {
  executionId: 'run-1',
  sessionId: 'ses-1',
  status: 'ok',
  stdout: '',
  stderr: '',
  displays: [],
  truncated: { stdout: false, stderr: false },
  durationMs: 12,
  files: [],
  artifacts: [],
  stateLost: false,
};

describe('execution text', () => {
  it('is a status line, then only the parts that have content', () => {
    expect(executionText(BASE)).toBe('ok in 12 ms (session ses-1)\n(no output)');
    expect(executionText({ ...BASE, stdout: 'hi\n', result: '42' })).toBe(
      'ok in 12 ms (session ses-1)\nstdout:\nhi\nresult: 42',
    );
    const failed = executionText({
      ...BASE,
      status: 'error',
      durationMs: 1500,
      error: { name: 'NameError', value: "name 'x' is not defined", traceback: 'Traceback …\nNameError: …' },
    });
    expect(failed).toBe('error in 1.5 s (session ses-1)\nerror:\nTraceback …\nNameError: …');
  });

  it('maps the contract result to snake_case without undefined fields', () => {
    const out = toExecutionOutput({ ...BASE, stdout: 'x' });
    expect(out).toEqual({
      status: 'ok',
      session_id: 'ses-1',
      execution_id: 'run-1',
      stdout: 'x',
      stderr: '',
      duration_ms: 12,
      truncated: { stdout: false, stderr: false },
      state_lost: false,
      artifacts: [],
    });
  });
});
