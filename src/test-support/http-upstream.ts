/**
 * A plain-HTTP server on port 80 in a container on an internal Docker network this helper creates: the
 * "internet host" of the egress tests. `/broken…` answers 502 Bad Gateway, everything else 200 with a line of
 * text; nothing listens on 443, so a tunnel to it is refused. The host reaches it at `ip` (the egress proxy
 * runs on the host); no container on another network does. Usable from vitest and Playwright (no import.meta).
 */
import { request } from 'node:http';
import type { DockerClient } from '../core/docker/docker-client';
import { newId } from '../core/util/ids';
import { pollUntil } from '../core/util/with-timeout';
import { TEST_LABEL, helperSpec } from './test-server-container';

export const UPSTREAM_BODY = 'hello from the test upstream';

const SERVER = [
  'import http.server',
  'class H(http.server.BaseHTTPRequestHandler):',
  '    def do_GET(self):',
  "        broken = self.path.startswith('/broken')",
  "        body = b'the upstream broke' if broken else b'" + UPSTREAM_BODY + "'",
  "        self.send_response(502 if broken else 200)",
  "        self.send_header('Content-Type', 'text/plain'); self.send_header('Content-Length', str(len(body))); self.end_headers()",
  '        self.wfile.write(body)',
  '    def log_message(self, *args): pass',
  "http.server.ThreadingHTTPServer(('0.0.0.0', 80), H).serve_forever()",
].join('\n');

export interface HttpUpstream {
  /** Its address on its network (the host reaches it directly). */
  ip: string;
  network: string;
  /** Removes the container and the network; safe to call twice. */
  stop(): Promise<void>;
}

function answers(ip: string): Promise<true | undefined> {
  return new Promise((resolve) => {
    const req = request({ host: ip, port: 80, path: '/', timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? true : undefined);
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** Starts the upstream in `image` (the python executor image); resolves once it answers the host. */
export async function startHttpUpstream(docker: DockerClient, image: string): Promise<HttpUpstream> {
  const suffix = newId('u', 6).slice(2);
  const network = `sandpit-test-upstream-${suffix}`;
  const networkId = await docker.createNetwork({ name: network, labels: { [TEST_LABEL]: 'true' }, internal: true });
  let containerId: string | undefined;
  const stop = async (): Promise<void> => {
    if (containerId) await docker.removeContainer(containerId).catch(() => undefined);
    containerId = undefined;
    await docker.removeNetwork(networkId).catch(() => undefined);
  };
  try {
    // Port 80 as the sandbox user: the engine lets a container's own network namespace bind low ports.
    containerId = await docker.createContainer(helperSpec(`sandpit-test-upstream-${suffix}`, image, network, ['python3', '-c', SERVER]));
    await docker.startContainer(containerId);
    const ip = (await docker.inspectContainer(containerId)).ipAddress ?? '';
    if (!ip) throw new Error('the test upstream container has no address on its network');
    await pollUntil(() => answers(ip), 30_000, 'the test upstream on port 80', 250);
    return { ip, network, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
