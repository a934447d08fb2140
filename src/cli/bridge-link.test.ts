import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../core/log';
import { awayMessage, BridgeLink } from './bridge-link';

/** A loopback port nothing listens on (taken, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('BridgeLink', () => {
  it('while the instance stays away, a call waits its bounded time and then gets a plain error naming what happened', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    let looks = 0;
    const link = new BridgeLink({ url, token: 't' }, () => {
      looks += 1;
      return Promise.resolve(undefined);
    }, createLogger({ app: 'sandpit', component: 'test', level: 'error' }), 700);
    await expect(link.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).rejects.toThrow(awayMessage(url));
    // It kept looking for the instance meanwhile (first try at once, then with growing pauses).
    expect(looks).toBeGreaterThanOrEqual(2);
    expect(awayMessage(url)).toBe(`Sandpit at ${url} is not answering (it stopped or is restarting). This connection keeps trying to reach it and comes back on its own once it is running; try again in a moment.`);
    await link.close();
  });
});
