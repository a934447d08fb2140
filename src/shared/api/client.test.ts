import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { createClient, unwrapEnvelope } from './client';
import type { SandpitEvent } from './client';
import type { EngineStatus } from '../domain/engine';
import { SandpitError } from './errors';
import type { Transport, TransportEventListener } from './transport';

type FakeTransport = Transport & { listener?: TransportEventListener; invokeMock: ReturnType<typeof vi.fn> };

function fakeTransport(answer: unknown): FakeTransport {
  const invokeMock = vi.fn(() => Promise.resolve(answer));
  const transport: FakeTransport = {
    kind: 'http',
    invokeMock,
    invoke: invokeMock,
    subscribe: (listener) => {
      transport.listener = listener;
      return () => undefined;
    },
  };
  return transport;
}

describe('createClient', () => {
  it('calls through the transport and returns the typed value', async () => {
    const transport = fakeTransport({ ok: true, value: { state: 'up', endpoint: 'x' } });
    const client = createClient(transport);
    const status = await client.call('engine.status');
    expectTypeOf(status).toEqualTypeOf<EngineStatus>();
    expect(status).toEqual({ state: 'up', endpoint: 'x' });
    expect(transport.invokeMock).toHaveBeenCalledWith('engine.status', {});
    // @ts-expect-error sessions.stop needs its input
    await client.call('sessions.stop').catch(() => undefined);
  });

  it('throws the envelope error as a SandpitError with its code and details', async () => {
    const client = createClient(
      fakeTransport({ ok: false, error: { code: 'SESSION_NOT_FOUND', message: 'gone', details: { id: 's' } } }),
    );
    const error: unknown = await client.call('sessions.get', { sessionId: 's' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandpitError);
    expect(error).toMatchObject({ code: 'SESSION_NOT_FOUND', message: 'gone', details: { id: 's' } });
  });

  it('delivers known events only', () => {
    const transport = fakeTransport(undefined);
    const seen: SandpitEvent[] = [];
    createClient(transport).subscribe((e) => seen.push(e));
    transport.listener?.('session.removed', { sessionId: 's1' });
    transport.listener?.('made.up', {});
    expect(seen).toEqual([{ name: 'session.removed', payload: { sessionId: 's1' } }]);
  });
});

describe('unwrapEnvelope', () => {
  it('maps unknown codes and malformed answers to INTERNAL', () => {
    expect(() => unwrapEnvelope({ ok: false, error: { code: 'WAT', message: 'm' } })).toThrow(
      expect.objectContaining({ code: 'INTERNAL', message: 'm' }),
    );
    for (const bad of [undefined, null, 'x', { ok: 'yes' }, { ok: true }, { ok: false }]) {
      expect(() => unwrapEnvelope(bad)).toThrow(SandpitError);
    }
    expect(unwrapEnvelope({ ok: true, value: null })).toBeNull();
  });
});
