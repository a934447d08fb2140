import { describe, expect, it, vi } from 'vitest';
import { SandpitError } from '../../../shared/api/errors';
import { createHttpTransport } from './http-transport';

type Call = { url: string; init: RequestInit };

function fakeFetch(respond: (call: Call) => Response | Promise<Response>): { fetch: typeof fetch; calls: Call[] } {
  const calls: Call[] = [];
  const fetchFn = vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
    const call = { url: typeof url === 'string' ? url : url instanceof URL ? url.href : url.url, init: init ?? {} };
    calls.push(call);
    return respond(call);
  });
  return { fetch: fetchFn, calls };
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met within 2 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('createHttpTransport invoke', () => {
  it('POSTs the JSON input to /api/<method> with the bearer token and returns the envelope', async () => {
    const { fetch, calls } = fakeFetch(() => json({ ok: true, value: { sessions: [] } }));
    const transport = createHttpTransport({ token: 'tok', baseUrl: 'http://127.0.0.1:7411', fetch });
    await expect(transport.invoke('sessions.list', {})).resolves.toEqual({ ok: true, value: { sessions: [] } });
    expect(calls[0]?.url).toBe('http://127.0.0.1:7411/api/sessions.list');
    expect(calls[0]?.init).toMatchObject({
      method: 'POST',
      body: '{}',
      headers: { authorization: 'Bearer tok', 'content-type': 'application/json' },
    });
  });

  it('passes error envelopes through whatever the HTTP status', async () => {
    const envelope = { ok: false, error: { code: 'SESSION_NOT_FOUND', message: 'No such session.' } };
    const { fetch } = fakeFetch(() => json(envelope, 404));
    await expect(
      createHttpTransport({ token: 't', fetch }).invoke('sessions.get', { sessionId: 'x' }),
    ).resolves.toEqual(envelope);
  });

  it('turns a 401 without an envelope, an unreachable server and a non-JSON answer into typed errors', async () => {
    const unauthorized = createHttpTransport({
      token: '',
      fetch: fakeFetch(() => new Response('no', { status: 401 })).fetch,
    });
    await expect(unauthorized.invoke('engine.status', {})).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    const down = createHttpTransport({
      token: 't',
      fetch: fakeFetch(() => Promise.reject(new TypeError('fetch failed'))).fetch,
    });
    await expect(down.invoke('engine.status', {})).rejects.toSatisfy(
      (e) => e instanceof SandpitError && /Cannot reach Sandpit/.test(e.message),
    );
    const odd = createHttpTransport({
      token: 't',
      fetch: fakeFetch(() => new Response('<html>', { status: 502 })).fetch,
    });
    await expect(odd.invoke('engine.status', {})).rejects.toMatchObject({ code: 'INTERNAL' });
  });
});

describe('createHttpTransport subscribe', () => {
  function sseResponse(text: string, keepOpen = false): Response {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        if (!keepOpen) controller.close();
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  }

  it('reads /api/events with the token in a header and delivers (name, payload)', async () => {
    const { fetch, calls } = fakeFetch(() =>
      sseResponse('id: 1\nevent: session.removed\ndata: {"sessionId":"s1"}\n\ndata: not json\n\n', true),
    );
    const transport = createHttpTransport({ token: 'tok', fetch });
    const seen: unknown[][] = [];
    const unsubscribe = transport.subscribe((...args) => seen.push(args));
    await until(() => seen.length === 1);
    expect(seen).toEqual([['session.removed', { sessionId: 's1' }]]);
    expect(calls[0]?.url).toBe('/api/events');
    expect(calls[0]?.init.headers).toMatchObject({ authorization: 'Bearer tok', accept: 'text/event-stream' });
    expect(calls[0]?.url).not.toContain('tok');
    unsubscribe();
    expect((calls[0]?.init.signal as AbortSignal).aborted).toBe(true);
  });

  it('shares one stream between listeners and reconnects with the last event id', async () => {
    let n = 0;
    const { fetch, calls } = fakeFetch(() => {
      n++;
      return n === 1
        ? sseResponse('id: 41\nevent: session.removed\ndata: {"sessionId":"a"}\n\n')
        : sseResponse(`id: 42\nevent: session.removed\ndata: {"sessionId":"b"}\n\n`, true);
    });
    const transport = createHttpTransport({ token: 't', fetch, retryMs: 5 });
    const first: unknown[] = [];
    const second: unknown[] = [];
    const offFirst = transport.subscribe((_name, payload) => first.push(payload));
    const offSecond = transport.subscribe((_name, payload) => second.push(payload));
    await until(() => first.length === 2);
    expect(first).toEqual([{ sessionId: 'a' }, { sessionId: 'b' }]);
    expect(second).toEqual(first);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.init.headers).toMatchObject({ 'last-event-id': '41' });
    offFirst();
    expect((calls[1]?.init.signal as AbortSignal).aborted).toBe(false);
    offSecond();
    expect((calls[1]?.init.signal as AbortSignal).aborted).toBe(true);
  });

  it('keeps retrying after failures until unsubscribed', async () => {
    const { fetch, calls } = fakeFetch(() =>
      calls.length < 3 ? new Response('nope', { status: 503 }) : sseResponse('', true),
    );
    const transport = createHttpTransport({ token: 't', fetch, retryMs: 1, maxRetryMs: 4 });
    const off = transport.subscribe(() => undefined);
    await until(() => calls.length >= 3);
    off();
  });
});

describe('createHttpTransport refusals', () => {
  it('says why the token was refused: none, never valid, or replaced after it worked', async () => {
    let allow = true;
    const { fetch } = fakeFetch(() =>
      allow
        ? json({ ok: true, value: {} })
        : json({ ok: false, error: { code: 'UNAUTHORIZED', message: 'A valid access token is required.' } }, 401),
    );
    const seen: string[] = [];
    const none = createHttpTransport({ token: '', fetch });
    none.onRefused?.((problem) => seen.push(problem));
    allow = false;
    await expect(none.invoke('engine.status', {})).rejects.toMatchObject({ code: 'UNAUTHORIZED' });

    const transport = createHttpTransport({ token: 'old', fetch });
    transport.onRefused?.((problem) => seen.push(problem));
    await expect(transport.invoke('engine.status', {})).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    allow = true;
    await transport.invoke('engine.status', {});
    allow = false;
    await expect(transport.invoke('engine.status', {})).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    transport.setToken?.('pasted');
    await expect(transport.invoke('engine.status', {})).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(seen).toEqual(['missing', 'invalid', 'replaced', 'invalid']);
  });

  it('reports a token the event stream is refused with, and that the server is there', async () => {
    const { fetch } = fakeFetch(() => json({ ok: false, error: { code: 'UNAUTHORIZED', message: 'no' } }, 401));
    const transport = createHttpTransport({ token: 't', fetch, accepted: true, retryMs: 1_000 });
    const refused: string[] = [];
    const link: boolean[] = [];
    transport.onRefused?.((problem) => refused.push(problem));
    transport.onLink?.((up) => link.push(up));
    const off = transport.subscribe(() => undefined);
    await until(() => refused.length > 0);
    off();
    expect(refused[0]).toBe('replaced');
    expect(link).toEqual([true]);
  });

  it('keeps the link up when one request fails while the event stream still flows (a request the browser cut), and says lost when no stream follows', async () => {
    const encoder = new TextEncoder();
    let failNext = false;
    const { fetch } = fakeFetch((call) => {
      if (call.url.endsWith('/api/events')) {
        // a stream that says hello and stays open
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode(': hello\n\n'));
          },
        });
        return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
      }
      if (failNext) {
        failNext = false;
        return Promise.reject(new TypeError('Failed to fetch (net::ERR_NETWORK_CHANGED)'));
      }
      return json({ ok: true, value: {} });
    });
    const transport = createHttpTransport({ token: 't', fetch, accepted: true });
    const link: boolean[] = [];
    transport.onLink?.((up) => link.push(up));
    const off = transport.subscribe(() => undefined);
    await until(() => link.length > 0);
    failNext = true;
    await expect(transport.invoke('audit.list', {})).rejects.toMatchObject({ code: 'INTERNAL' });
    await expect(transport.invoke('audit.list', {})).resolves.toEqual({ ok: true, value: {} });
    expect(link).toEqual([true]);
    off();

    // No stream: the requests are all there is; a failure says lost, the next answer says up again.
    const alone = createHttpTransport({ token: 't', fetch, accepted: true });
    const seen: boolean[] = [];
    alone.onLink?.((up) => seen.push(up));
    failNext = true;
    await expect(alone.invoke('audit.list', {})).rejects.toMatchObject({ code: 'INTERNAL' });
    await expect(alone.invoke('audit.list', {})).resolves.toEqual({ ok: true, value: {} });
    expect(seen).toEqual([false, true]);
  });
});
