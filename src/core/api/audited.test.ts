import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MethodName } from '../../shared/api/contract';
import { SandpitError } from '../../shared/api/errors';
import type { AuditSummary } from '../../shared/domain/audit';
import type { ExecutionResult } from '../../shared/domain/execution';
import { auditFixture } from '../../test-support/audit';
import type { AuditFixture } from '../../test-support/audit';
import type { AuditStore } from '../audit/audit-store';
import { fakeSessions, onlyHandlers } from '../../test-support/policy';
import type { AuditDeps } from './audited';
import { withPolicy } from './with-policy';
import { call } from './dispatcher';
import { EventBus } from '../events/event-bus';
import type { CallContext, Handlers } from './api-types';

const MCP: CallContext = { transport: 'mcp-http', client: 'test-client', principal: 'p' };

function result(overrides: Partial<ExecutionResult> = {}): ExecutionResult {
  return {
    executionId: 'run-00000000',
    sessionId: 'ses-1',
    status: 'ok',
    stdout: '2\n',
    stderr: '',
    displays: [],
    truncated: { stdout: false, stderr: false },
    durationMs: 42,
    files: [],
    artifacts: [],
    stateLost: false,
    ...overrides,
  };
}

/** The policy wrapper with this audit log, under an approval policy that never asks. */
function withAudit(handlers: Handlers, audit: AuditDeps): Handlers {
  const approvals = {
    queue: undefined as never,
    settings: () => ({ defaultPolicy: 'free' as const, perClient: {}, timeoutSeconds: 60 }),
    sessions: fakeSessions(),
    defaultSession: () => undefined,
  };
  return withPolicy(handlers, { audit, approvals });
}
const only = onlyHandlers;

let fx: AuditFixture;
let store: AuditStore;
let bus: EventBus;
let events: AuditSummary[];
beforeEach(() => {
  fx = auditFixture();
  store = fx.open();
  bus = new EventBus();
  events = [];
  bus.on('audit.appended', (row) => events.push(row));
});
afterEach(() => fx.cleanup());

function audited(partial: Partial<Handlers>): Handlers {
  return withAudit(only(partial), { audit: store, bus, environmentOf: (id) => (id === 'ses-1' ? 'env-9' : undefined), defaultSession: () => 'ses-default' });
}

describe('the audit log of calls (withPolicy)', () => {
  it('writes the row before the run and completes it before the result returns, with who called', async () => {
    let seenWhileRunning: unknown;
    const api = audited({
      'sessions.execute': async (input) => {
        seenWhileRunning = store.list({ limit: 5 }).rows[0];
        return result({ executionId: input.executionId ?? 'missing', stdout: 'hello\n', artifacts: [{ sha256: 'c'.repeat(64), path: 'a.png', mime: 'image/png', size: 1, sessionId: 'ses-1', createdAt: '' }] });
      },
    });
    const out = await call(api, 'sessions.execute', { code: 'print("hello")' }, MCP);
    expect(seenWhileRunning).toMatchObject({ status: 'running', code: 'print("hello")', client: 'test-client', transport: 'mcp-http', principal: 'p' });
    expect(out.auditId).toBe(1);
    expect(out.executionId).toMatch(/^run-[a-f0-9]{16}$/);
    expect(store.get(1)).toMatchObject({
      status: 'ok',
      sessionId: 'ses-1',
      environment: 'env-9',
      executionId: out.executionId,
      stdout: 'hello\n',
      durationMs: 42,
      artifacts: ['c'.repeat(64)],
      client: 'test-client',
      transport: 'mcp-http',
      principal: 'p',
    });
    expect(events.map((e) => e.status)).toEqual(['running', 'ok']);
    expect((await store.verify()).ok).toBe(true);
  });

  it('records an execution error with its traceback, and a thrown error as failed (rethrown)', async () => {
    const api = audited({
      'sessions.execute': async ({ code }) => {
        if (code === 'boom') throw new SandpitError('CONTAINER_DIED', 'The sandbox stopped.');
        return result({ status: 'error', error: { name: 'ZeroDivisionError', value: 'division by zero', traceback: 'Traceback …' } });
      },
    });
    const first = await call(api, 'sessions.execute', { code: '1/0' }, MCP);
    expect(store.get(first.auditId ?? 0)).toMatchObject({ status: 'error', errorMessage: 'ZeroDivisionError: division by zero\nTraceback …' });
    await expect(call(api, 'sessions.execute', { code: 'boom' }, MCP)).rejects.toThrow('The sandbox stopped.');
    expect(store.get(2)).toMatchObject({ status: 'failed', errorCode: 'CONTAINER_DIED', errorMessage: 'The sandbox stopped.', sessionId: 'ses-default' });
  });

  it('records a denied call as denied', async () => {
    const api = audited({
      'sessions.runCommand': async () => {
        throw new SandpitError('DENIED', 'The person using Sandpit denied this run.');
      },
    });
    await expect(call(api, 'sessions.runCommand', { command: 'rm -rf /', sessionId: 'ses-1' }, { transport: 'ipc', client: 'panel' })).rejects.toThrow(/denied/);
    expect(store.get(1)).toMatchObject({ status: 'denied', errorCode: 'DENIED', code: 'rm -rf /', transport: 'ipc', client: 'panel', sessionId: 'ses-1' });
    expect(store.get(1)?.principal).toBeUndefined();
  });

  it('records commands: exit code, timeout', async () => {
    const api = audited({
      'sessions.runCommand': async ({ command }) => ({ sessionId: 'ses-1', exitCode: command === 'sleep 99' ? 137 : 3, stdout: '', stderr: 'nope', timedOut: command === 'sleep 99', durationMs: 5 }),
    });
    await call(api, 'sessions.runCommand', { command: 'false' }, MCP);
    await call(api, 'sessions.runCommand', { command: 'sleep 99' }, MCP);
    expect(store.get(1)).toMatchObject({ status: 'error', exitCode: 3, stderr: 'nope' });
    expect(store.get(2)).toMatchObject({ status: 'timeout', exitCode: 137 });
  });

  it('records installs: the package list, and which failed', async () => {
    const api = audited({
      'packages.install': async () => ({ results: [{ package: 'numpy', ok: true, version: '2.1.0' }, { package: 'nopkg', ok: false, error: 'not found' }] }),
    });
    const out = await call(api, 'packages.install', { packages: ['numpy', 'nopkg'] }, MCP);
    expect(out.auditId).toBe(1);
    expect(store.get(1)).toMatchObject({ method: 'packages.install', code: 'numpy\nnopkg', status: 'error', stdout: 'numpy: installed 2.1.0\n', stderr: 'nopkg: not found\n', errorMessage: 'Could not install nopkg.', sessionId: 'ses-default' });
  });

  it('records the content of a file that ran (run_file)', async () => {
    const api = audited({
      'sessions.runFile': async ({ executionId }) => {
        bus.emit('execution.started', { sessionId: 'ses-1', executionId: 'run-other0000', code: 'not this', startedAt: '' });
        bus.emit('execution.started', { sessionId: 'ses-1', executionId: executionId ?? '', code: 'print("from the file")', startedAt: '' });
        return result({ executionId: executionId ?? '' });
      },
    });
    await call(api, 'sessions.runFile', { path: 'job.py', executionId: 'run-given000' }, MCP);
    expect(store.get(1)).toMatchObject({ method: 'sessions.runFile', code: 'job.py', fileContent: 'print("from the file")', executionId: 'run-given000' });
  });

  it('records a failed run_file without a session in the default session of the file language (.sh: bash)', async () => {
    const api = withAudit(only({ 'sessions.runFile': async () => Promise.reject(new SandpitError('CONTAINER_DIED', 'gone')) }), {
      audit: store,
      bus,
      defaultSession: (_context, language) => `ses-${language ?? 'none'}`,
    });
    for (const path of ['build.sh', 'app.mjs', 'job.py']) await expect(call(api, 'sessions.runFile', { path }, MCP)).rejects.toThrow('gone');
    expect([store.get(1)?.sessionId, store.get(2)?.sessionId, store.get(3)?.sessionId]).toEqual(['ses-bash', 'ses-javascript', 'ses-python']);
  });

  it('does not run a call that cannot be written to the log', async () => {
    let ran = false;
    const api = audited({
      'sessions.execute': async () => {
        ran = true;
        return result();
      },
    });
    store.close();
    await expect(call(api, 'sessions.execute', { code: '1' }, MCP)).rejects.toThrow(/not run because it could not be written to the audit log/);
    expect(ran).toBe(false);
  });

  it('passes every other method through untouched', async () => {
    const api = audited({ 'sessions.list': async () => ({ sessions: [] }) });
    const untouched: MethodName = 'sessions.list';
    await expect(call(api, untouched, {}, MCP)).resolves.toEqual({ sessions: [] });
    expect(store.list({ limit: 5 }).rows).toEqual([]);
  });
});
