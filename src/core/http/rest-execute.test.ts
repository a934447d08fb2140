import { describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../shared/domain/execution';
import { EXECUTION_STATUSES } from '../../shared/domain/execution';
import { EXIT_CODES, restExecuteRequestSchema, toRestResponse } from './rest-execute';

function result(overrides: Partial<ExecutionResult>): ExecutionResult {
  return {
    executionId: 'run-1',
    sessionId: 'ses-1',
    status: 'ok',
    stdout: '',
    stderr: '',
    displays: [],
    truncated: { stdout: false, stderr: false },
    durationMs: 5,
    files: [],
    artifacts: [],
    stateLost: false,
    ...overrides,
  };
}

describe('toRestResponse', () => {
  it('maps each status to a shell exit code', () => {
    expect(EXIT_CODES).toEqual({ ok: 0, error: 1, timeout: 124, interrupted: 130, oom: 137, killed: 137 });
    for (const status of EXECUTION_STATUSES)
      expect(toRestResponse(result({ status })).exit_code).toBe(EXIT_CODES[status]);
  });

  it('keeps stdout, adds the traceback to stderr like a script would, and lists artifacts by their four fields', () => {
    const response = toRestResponse(
      result({
        status: 'error',
        stdout: 'hi\n',
        stderr: 'warn',
        error: {
          name: 'ZeroDivisionError',
          value: 'division by zero',
          traceback: 'Traceback …\nZeroDivisionError: division by zero\n',
        },
        artifacts: [
          {
            sha256: 'a'.repeat(64),
            path: 'out.txt',
            mime: 'text/plain',
            size: 3,
            sessionId: 'ses-1',
            executionId: 'run-1',
            createdAt: 'now',
          },
        ],
      }),
    );
    expect(response).toEqual({
      stdout: 'hi\n',
      stderr: 'warn\nTraceback …\nZeroDivisionError: division by zero\n',
      exit_code: 1,
      artifacts: [{ path: 'out.txt', mime: 'text/plain', size: 3, sha256: 'a'.repeat(64) }],
    });
  });

  it('adds the plain-language note of a timeout, once', () => {
    const response = toRestResponse(
      result({ status: 'timeout', message: 'The run took longer than 1 s and was stopped.' }),
    );
    expect(response.stderr).toBe('The run took longer than 1 s and was stopped.\n');
    expect(toRestResponse(result({ message: 'fine' })).stderr).toBe('');
  });
});

describe('restExecuteRequestSchema', () => {
  it('leaves the language to the environment and refuses unknown fields', () => {
    expect(restExecuteRequestSchema.parse({ code: 'print(1)' })).toEqual({ code: 'print(1)' });
    expect(restExecuteRequestSchema.parse({ code: 'x', env: 'My data env' })).toEqual({ code: 'x', env: 'My data env' });
    expect(restExecuteRequestSchema.safeParse({ code: 'x', timeout_ms: 1 }).success).toBe(false);
    expect(restExecuteRequestSchema.safeParse({ code: 'x', timeout: 0 }).success).toBe(false);
    expect(restExecuteRequestSchema.safeParse({ code: 'x', files: { 'a.txt': 1 } }).success).toBe(false);
    expect(restExecuteRequestSchema.safeParse({}).success).toBe(false);
  });
});
