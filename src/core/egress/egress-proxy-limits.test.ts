import { describe, expect, it } from 'vitest';
import { pollUntil } from '../util/with-timeout';
import {
  defaultAuth,
  dial,
  echoSockets,
  proxied,
  readAll,
  sendConnect,
  startProxy,
  useEgressProxyHarness,
  WAIT_MS,
} from '../../test-support/egress-proxy-harness';

useEgressProxyHarness();

describe('egress proxy: limits and lifecycle', () => {
  it('answers a header flood with 431 and stays up', async () => {
    const { proxy, connects } = await startProxy({ maxHeaderBytes: 8 * 1024 });
    const socket = dial(proxy.port);
    const answer = readAll(socket);
    const flood = Array.from({ length: 500 }, (_, i) => `X-Flood-${i}: ${'a'.repeat(100)}\r\n`).join('');
    socket.write(
      `GET http://pypi-mirror.test/ HTTP/1.1\r\nHost: pypi-mirror.test\r\nProxy-Authorization: ${defaultAuth}\r\n${flood}\r\n`,
    );
    expect(await answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(connects).toEqual([]);
    expect((await proxied({ port: proxy.port, path: 'http://pypi-mirror.test/' })).status).toBe(200);
  });

  it('drops connections beyond maxConnections and accepts again once one closes', async () => {
    const { proxy } = await startProxy({ maxConnections: 2 });
    const first = dial(proxy.port);
    dial(proxy.port);
    await pollUntil(() => (proxy.stats().connections === 2 ? true : undefined), WAIT_MS, 'two connections');
    const third = dial(proxy.port);
    const thirdGot = await readAll(third);
    expect(thirdGot).toBe('');
    expect(proxy.stats().dropped).toBe(1);
    first.destroy();
    await pollUntil(() => (proxy.stats().connections === 1 ? true : undefined), WAIT_MS, 'one connection');
    expect((await sendConnect(proxy.port, 'pypi-mirror.test:443')).status).toBe(200);
  });

  it('close() ends open tunnels, upstream sockets and the listener', async () => {
    const { proxy } = await startProxy();
    const { socket, status } = await sendConnect(proxy.port, 'pypi-mirror.test:443');
    expect(status).toBe(200);
    await pollUntil(() => (echoSockets.size === 1 ? true : undefined), WAIT_MS, 'upstream connected');
    const idle = dial(proxy.port);
    const clientClosed = readAll(socket);
    const idleClosed = readAll(idle);
    await pollUntil(() => (proxy.stats().connections === 2 ? true : undefined), WAIT_MS, 'two connections');
    await proxy.close();
    await clientClosed;
    await idleClosed;
    await pollUntil(() => (echoSockets.size === 0 ? true : undefined), WAIT_MS, 'upstream closed');
    await expect(proxied({ port: proxy.port, path: 'http://pypi-mirror.test/', timeoutMs: WAIT_MS })).rejects.toThrow(
      /ECONNREFUSED/,
    );
    await proxy.close();
  });
});
