/**
 * An HTTPS server on port 443 in a container on an internal Docker network this helper creates: the "API" of the
 * secrets tests, with a certificate for its own address signed by a test CA of its own (`ca`, which the egress
 * proxy is told to trust). It answers every GET with the sha256 of the Authorization header it got — never the
 * header itself, so no value it is sent comes back into a sandbox. The host reaches it at `ip`; no container on
 * another network does. Usable from vitest and Playwright (no import.meta).
 */
import { connect } from 'node:tls';
import type { DockerClient } from '../core/docker/docker-client';
import { createSecretAuthority } from '../core/egress/secret-ca';
import { newId } from '../core/util/ids';
import { pollUntil } from '../core/util/with-timeout';
import { TEST_LABEL, helperSpec } from './test-server-container';

// Waits for its certificate (written by the test once the address is known), then serves.
const SERVER = [
  'import hashlib, http.server, json, os, ssl, time',
  "while not os.path.exists('/tmp/tls/ready'): time.sleep(0.05)",
  'class H(http.server.BaseHTTPRequestHandler):',
  '    def do_GET(self):',
  "        a = self.headers.get('Authorization')",
  "        body = json.dumps({'sha256': hashlib.sha256((a or '').encode()).hexdigest(), 'authorized': a is not None}).encode()",
  "        self.send_response(200); self.send_header('Content-Type', 'application/json'); self.send_header('Content-Length', str(len(body))); self.end_headers()",
  '        self.wfile.write(body)',
  '    def log_message(self, *args): pass',
  "s = http.server.ThreadingHTTPServer(('0.0.0.0', 443), H)",
  "c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); c.load_cert_chain('/tmp/tls/cert.pem', '/tmp/tls/key.pem')",
  's.socket = c.wrap_socket(s.socket, server_side=True)',
  's.serve_forever()',
].join('\n');

// Run in the server's container with the certificate and key as JSON on stdin.
const WRITE_TLS = [
  'import json, os, sys',
  'tls = json.load(sys.stdin)',
  "os.makedirs('/tmp/tls', exist_ok=True)",
  "open('/tmp/tls/cert.pem', 'w').write(tls['cert']); open('/tmp/tls/key.pem', 'w').write(tls['key'])",
  "open('/tmp/tls/ready', 'w').close()",
].join('\n');

export interface HttpsUpstream {
  /** Its address on its network: the host name a secret names (the certificate is for it). */
  ip: string;
  network: string;
  /** The test CA's certificate (PEM) that signed the server's: what the egress proxy must trust upstream. */
  ca: string;
  /** Removes the container and the network; safe to call twice. */
  stop(): Promise<void>;
}

function handshakes(ip: string, ca: string): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: ip, port: 443, ca, timeout: 2_000 }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(undefined));
    socket.on('timeout', () => socket.destroy());
  });
}

/** Starts the server in `image` (the python executor image); resolves once the host completes a verified handshake. */
export async function startHttpsUpstream(docker: DockerClient, image: string): Promise<HttpsUpstream> {
  const suffix = newId('h', 6).slice(2);
  const network = `sandpit-test-https-${suffix}`;
  const networkId = await docker.createNetwork({ name: network, labels: { [TEST_LABEL]: 'true' }, internal: true });
  let containerId: string | undefined;
  const stop = async (): Promise<void> => {
    if (containerId) await docker.removeContainer(containerId).catch(() => undefined);
    containerId = undefined;
    await docker.removeNetwork(networkId).catch(() => undefined);
  };
  try {
    containerId = await docker.createContainer(helperSpec(`sandpit-test-https-${suffix}`, image, network, ['python3', '-c', SERVER]));
    await docker.startContainer(containerId);
    const ip = (await docker.inspectContainer(containerId)).ipAddress ?? '';
    if (!ip) throw new Error('the test HTTPS upstream has no address on its network');
    const authority = createSecretAuthority('Test upstream CA');
    const leaf = authority.leafFor(ip);
    const written = await docker.exec(containerId, ['python3', '-c', WRITE_TLS], { stdin: Buffer.from(JSON.stringify(leaf)), timeoutMs: 30_000 });
    if (written.exitCode !== 0) throw new Error(`could not give the test HTTPS upstream its certificate: ${written.stderr.trim()}`);
    await pollUntil(() => handshakes(ip, authority.certificate), 30_000, 'the test HTTPS upstream on port 443', 250);
    return { ip, network, ca: authority.certificate, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
