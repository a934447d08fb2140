import { SandpitError } from '../../shared/api/errors';
import type { EngineEndpoint } from './docker-client';

const UNREACHABLE = ['ECONNREFUSED', 'ENOENT', 'EACCES', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH'];

/** How to get a Docker engine running, in plain words. */
export function dockerFixHint(endpoint: EngineEndpoint): string {
  return endpoint.kind === 'local'
    ? `Start Docker (Docker Desktop, or "sudo systemctl start docker" / "sudo dockerd" on Linux) and make sure ${endpoint.address} is readable by this user.`
    : `Check that the Docker engine at ${endpoint.address} is running and reachable, or unset DOCKER_HOST to use the local one.`;
}

/** Docker Desktop mounts only the folders it shares with its VM: which one it refused, and how to share it. */
export function fileSharingRefusal(message: string): SandpitError {
  const path = /path (\S+) is not shared/i.exec(message)?.[1] ?? /denied:\s*(\S+)/i.exec(message)?.[1];
  return new SandpitError(
    'DENIED',
    `Docker Desktop does not share ${path ? `the folder ${path}` : 'this folder'} with its engine, so no sandbox can see it. Open Docker Desktop → Settings → Resources → File sharing, add the folder (or one that holds it), choose "Apply & restart", then share it again.`,
    { reason: 'docker-file-sharing', cause: message },
  );
}

/** Maps a dockerode/docker-modem failure to a stable SandpitError. SandpitErrors pass through. */
export function mapDockerError(error: unknown, what: string, endpoint: EngineEndpoint): SandpitError {
  if (error instanceof SandpitError) {
    return error.code === 'INTERNAL' && /did not finish within/.test(error.message)
      ? new SandpitError('DOCKER_UNAVAILABLE', `The Docker engine did not answer (${what}). ${dockerFixHint(endpoint)}`)
      : error;
  }
  const e = error as { code?: string; statusCode?: number; message?: string; json?: { message?: string } };
  const message = e.json?.message ?? e.message ?? String(error);
  // A TLS engine that does not take our client certificate just closes the connection after the handshake.
  const reset = /ECONNRESET|EPIPE|socket hang up/i.test(`${e.code ?? ''} ${message}`);
  if (/certificate|SSL|TLS|handshake|EPROTO|self.signed|unable to verify/i.test(`${e.code ?? ''} ${message}`) || (endpoint.tls === true && reset)) {
    return new SandpitError(
      'DOCKER_UNAVAILABLE',
      `The Docker engine at ${endpoint.address} and Sandpit could not agree on TLS (${reset ? 'the engine closed the connection: it most likely does not accept this client certificate' : message}). Check the client certificate and key (DOCKER_CERT_PATH, or the docker context's certificates) and the engine's CA.`,
      { cause: message },
    );
  }
  if ((e.code && UNREACHABLE.includes(e.code)) || /socket hang up|connect E|ECONNREFUSED/i.test(message)) {
    return new SandpitError('DOCKER_UNAVAILABLE', `Docker is not running or not reachable at ${endpoint.address}. ${dockerFixHint(endpoint)}`, { cause: message });
  }
  if (/mounts denied|is not shared from the host|not known to docker/i.test(message)) return fileSharingRefusal(message);
  if (e.statusCode === 404 && /no such image|image .* not found|pull access denied/i.test(message)) {
    return new SandpitError('IMAGE_MISSING', `The image is not available: ${message}. Build it with "npm run build:images".`);
  }
  if (e.statusCode === 404) return new SandpitError('NOT_FOUND', `${what}: ${message}`);
  if (e.statusCode === 409) return new SandpitError('CONFLICT', `${what}: ${message}`);
  return new SandpitError('INTERNAL', `Docker failed to ${what}: ${message}`, { statusCode: e.statusCode });
}
