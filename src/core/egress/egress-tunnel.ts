import type { Socket } from 'node:net';
import type { Logger } from '../log';
import type { EgressConnector } from './egress-connector';
import { FORBIDDEN_ADDRESS } from './egress-connector';
import { endGracefully, rawResponse } from './egress-http';
import type { EgressOutcome } from './egress-outcome';
import type { EgressTarget } from './egress-target';
import { isEstablished, openUpstream } from './egress-upstream';
import type { UpstreamTimeouts } from './egress-upstream';

export interface TunnelDeps extends UpstreamTimeouts {
  connector: EgressConnector;
  log: Logger;
  track: (socket: Socket) => void;
  /** The upstream resolved to an address the proxy never reaches; the caller answers 403 and reports it. */
  refuseForbiddenAddress: () => void;
  onOpen: () => void;
  onClose: () => void;
  /** Whether the upstream was reached (the tunnel opened) or not (its socket error code). */
  onOutcome?: (outcome: EgressOutcome) => void;
}

/**
 * Serves `CONNECT host:port` for an allowed target: opens the upstream, answers 200, then copies
 * bytes both ways. An end on one side is passed on as an end (nothing buffered is lost); an error
 * or an idle timeout on either side destroys both. `head` is what the client sent after the headers.
 */
export function openTunnel(client: Socket, head: Buffer, target: EgressTarget, deps: TunnelDeps): void {
  const upstream = openUpstream(deps.connector, target, deps, deps.track);
  let open = false;
  const abort = (): void => {
    client.destroy();
    upstream.destroy();
  };
  // The HTTP server dropped its listeners from this socket when it handed it over; errors are ours now.
  client.on('error', abort);
  client.once('close', () => upstream.destroy());
  client.setTimeout(deps.idleTimeoutMs);
  client.on('timeout', abort);

  upstream.on('error', (error: NodeJS.ErrnoException) => {
    if (open || client.destroyed) return abort();
    deps.log.debug('egress upstream failed', {
      host: target.host,
      port: target.port,
      code: error.code,
      message: error.message,
    });
    if (error.code === FORBIDDEN_ADDRESS) return deps.refuseForbiddenAddress();
    deps.onOutcome?.({ connected: false, ...(error.code ? { code: error.code } : {}) });
    const status = error.code === 'ETIMEDOUT' ? 504 : 502;
    endGracefully(
      client,
      rawResponse(
        status,
        `Sandpit egress proxy: could not reach ${target.host}:${target.port} (${error.code ?? 'error'})`,
      ),
    );
  });

  const established = (): void => {
    if (client.destroyed) return abort();
    open = true;
    deps.onOpen();
    deps.onOutcome?.({ connected: true });
    // The upstream socket ends its own writing side when the server ends; stop feeding it then.
    upstream.once('end', () => {
      client.unpipe(upstream);
      client.resume();
    });
    upstream.once('close', () => {
      deps.onClose();
      endGracefully(client);
    });
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  };
  if (isEstablished(upstream)) established();
  else upstream.once('connect', established);
}
