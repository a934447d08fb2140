import { Socket } from 'node:net';
import type { EgressConnector } from './egress-connector';
import type { EgressTarget } from './egress-target';

export interface UpstreamTimeouts {
  /** Time allowed to establish the TCP connection. */
  connectTimeoutMs: number;
  /** Time a connection may sit with no bytes either way. */
  idleTimeoutMs: number;
}

/**
 * Opens the upstream socket through the connector and bounds it: a connect timeout, then an idle
 * timeout; both destroy it with ETIMEDOUT. `track` registers it so the proxy's close() can end it.
 */
export function openUpstream(
  connector: EgressConnector,
  target: EgressTarget,
  timeouts: UpstreamTimeouts,
  track: (socket: Socket) => void,
): Socket {
  const socket = safeConnect(connector, target);
  track(socket);
  const established = isEstablished(socket);
  socket.setTimeout(established ? timeouts.idleTimeoutMs : timeouts.connectTimeoutMs);
  if (!established) socket.once('connect', () => socket.setTimeout(timeouts.idleTimeoutMs));
  socket.on('timeout', () => {
    const what = socket.connecting ? 'connect' : 'idle';
    socket.destroy(
      Object.assign(new Error(`upstream ${target.host}:${target.port} ${what} timeout`), { code: 'ETIMEDOUT' }),
    );
  });
  return socket;
}

/**
 * Whether the socket is already connected (a connector may hand back a connected socket). Not
 * readyState: a fresh, never-connected Socket reports 'open'.
 */
export function isEstablished(socket: Socket): boolean {
  return !socket.pending && !socket.destroyed;
}

/** A connector that throws must not take the server down: its error arrives on the socket like any other. */
function safeConnect(connector: EgressConnector, target: EgressTarget): Socket {
  try {
    return connector(target.host, target.port);
  } catch (error) {
    const failed = new Socket();
    process.nextTick(() => failed.destroy(error instanceof Error ? error : new Error(String(error))));
    return failed;
  }
}
