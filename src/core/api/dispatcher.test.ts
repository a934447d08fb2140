import { describe, expect, it, vi } from 'vitest';
import { SandpitError } from '../../shared/api/errors';
import { call, dispatch, isMethodName } from './dispatcher';
import type { CallContext, Handlers } from './api-types';

const CONTEXT: CallContext = { transport: 'http', client: 'test-client' };

/** Handlers where only the given methods exist; any other call fails the test loudly. */
function handlers(partial: Partial<Handlers>): Handlers {
  return new Proxy(partial, {
    get(target, key: string | symbol) {
      const handler = target[key as keyof Handlers];
      if (!handler) throw new Error(`handler ${String(key)} should not be called`);
      return handler;
    },
  }) as Handlers;
}

describe('isMethodName', () => {
  it('knows the contract methods and nothing inherited', () => {
    expect(isMethodName('sessions.execute')).toBe(true);
    expect(isMethodName('engine.status')).toBe(true);
    expect(isMethodName('sessions.nope')).toBe(false);
    expect(isMethodName('toString')).toBe(false);
    expect(isMethodName('__proto__')).toBe(false);
    expect(isMethodName('constructor')).toBe(false);
  });
});

describe('dispatch', () => {
  it('answers an unknown method with a NOT_FOUND envelope naming it', async () => {
    const envelope = await dispatch(handlers({}), 'sessions.explode', {}, CONTEXT);
    expect(envelope).toEqual({
      ok: false,
      error: { code: 'NOT_FOUND', message: 'Unknown method "sessions.explode".' },
    });
  });

  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty'])(
    'does not treat the inherited name %j as a method',
    async (name) => {
      const envelope = await dispatch(handlers({}), name, {}, CONTEXT);
      expect(envelope.ok).toBe(false);
      expect(!envelope.ok && envelope.error.code).toBe('NOT_FOUND');
    },
  );

  it('answers invalid input with an INVALID_INPUT envelope naming the field, without calling the handler', async () => {
    const execute = vi.fn();
    const envelope = await dispatch(
      handlers({ 'sessions.execute': execute }),
      'sessions.execute',
      { sessionId: 'ses-1', code: 'x', timeoutMs: 5 },
      CONTEXT,
    );
    expect(envelope.ok).toBe(false);
    if (envelope.ok) return;
    expect(envelope.error.code).toBe('INVALID_INPUT');
    expect(envelope.error.message).toMatch(/^timeoutMs: /);
    expect(execute).not.toHaveBeenCalled();
  });

  it('names every bad field and nested paths', async () => {
    const envelope = await dispatch(
      handlers({}),
      'sessions.create',
      { language: 'cobol', limits: { memoryMb: 1 } },
      CONTEXT,
    );
    if (envelope.ok) throw new Error('expected a failure');
    expect(envelope.error.code).toBe('INVALID_INPUT');
    expect(envelope.error.message).toContain('language: ');
    expect(envelope.error.message).toContain('limits.memoryMb: ');
  });

  it('names "input" when the input is not an object', async () => {
    const envelope = await dispatch(handlers({}), 'sessions.get', 'ses-1', CONTEXT);
    if (envelope.ok) throw new Error('expected a failure');
    expect(envelope.error.code).toBe('INVALID_INPUT');
    expect(envelope.error.message).toMatch(/^input: /);
  });

  it('passes the parsed input (with defaults) and the context to the handler, and wraps its value', async () => {
    const list = vi.fn(() => Promise.resolve({ artifacts: [] }));
    const envelope = await dispatch(
      handlers({ 'artifacts.list': list }),
      'artifacts.list',
      { sessionId: 'ses-1', extra: 'dropped' },
      CONTEXT,
    );
    expect(list).toHaveBeenCalledWith({ sessionId: 'ses-1', limit: 200 }, CONTEXT);
    expect(envelope).toEqual({ ok: true, value: { artifacts: [] } });
  });

  it('treats a missing input as an empty object', async () => {
    const status = vi.fn(() => Promise.resolve({ state: 'up' as const, endpoint: '/var/run/docker.sock' }));
    const envelope = await dispatch(handlers({ 'engine.status': status }), 'engine.status', undefined, CONTEXT);
    expect(envelope).toEqual({ ok: true, value: { state: 'up', endpoint: '/var/run/docker.sock' } });
    expect(status).toHaveBeenCalledWith({}, CONTEXT);
  });

  it('answers a SandpitError thrown by the handler with its code, message and details', async () => {
    const get = vi.fn(() =>
      Promise.reject(new SandpitError('SESSION_NOT_FOUND', 'No session "ses-9".', { sessionId: 'ses-9' })),
    );
    const envelope = await dispatch(handlers({ 'sessions.get': get }), 'sessions.get', { sessionId: 'ses-9' }, CONTEXT);
    expect(envelope).toEqual({
      ok: false,
      error: { code: 'SESSION_NOT_FOUND', message: 'No session "ses-9".', details: { sessionId: 'ses-9' } },
    });
  });

  it('answers a plain Error with INTERNAL, keeping its message', async () => {
    const stop = vi.fn(() => Promise.reject(new Error('something broke')));
    const envelope = await dispatch(
      handlers({ 'sessions.stop': stop }),
      'sessions.stop',
      { sessionId: 'ses-1' },
      CONTEXT,
    );
    expect(envelope).toEqual({ ok: false, error: { code: 'INTERNAL', message: 'something broke' } });
  });

  it('never throws, even when the handler throws synchronously', async () => {
    const interrupt = (() => {
      throw new SandpitError('SESSION_BUSY', 'busy');
    }) as unknown as Handlers['sessions.interrupt'];
    const envelope = await dispatch(
      handlers({ 'sessions.interrupt': interrupt }),
      'sessions.interrupt',
      { sessionId: 'ses-1' },
      CONTEXT,
    );
    expect(envelope).toEqual({ ok: false, error: { code: 'SESSION_BUSY', message: 'busy' } });
  });
});

describe('call', () => {
  it('throws INVALID_INPUT as a SandpitError for bad input', async () => {
    const outcome = await call(handlers({}), 'sessions.get', { sessionId: '' }, CONTEXT).catch(
      (error: unknown) => error,
    );
    expect(outcome).toBeInstanceOf(SandpitError);
    expect((outcome as SandpitError).code).toBe('INVALID_INPUT');
    expect((outcome as SandpitError).message).toMatch(/^sessionId: /);
  });
});
