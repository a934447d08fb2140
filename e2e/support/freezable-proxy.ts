/**
 * A loopback HTTP proxy in front of a Sandpit that can be "frozen": while frozen it keeps every connection
 * open but passes nothing on, in either direction — as a hung Sandpit would look to the panel (no answer,
 * no closed stream, no heartbeat). The Host header is rewritten to the Sandpit's own address (it answers
 * only to that).
 */
import { request as httpRequest, createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FreezableProxy {
  url: string;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startFreezableProxy(target: string): Promise<FreezableProxy> {
  const upstream = new URL(target);
  let frozen = false;
  const held: (() => void)[] = [];
  /** Runs `step` now, or when thawed. */
  const whenThawed = (step: () => void): void => {
    if (frozen) held.push(step);
    else step();
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    whenThawed(() => {
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host, ...(req.headers.origin ? { origin: upstream.origin } : {}) } },
        (answer) => {
          whenThawed(() => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.on('data', (chunk: Buffer) => {
              if (!frozen) {
                res.write(chunk);
                return;
              }
              answer.pause();
              held.push(() => {
                res.write(chunk);
                answer.resume();
              });
            });
            answer.on('end', () => whenThawed(() => res.end()));
          });
        },
      );
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const step of held.splice(0)) step();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
