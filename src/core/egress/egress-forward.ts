import { request } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../log';
import type { EgressConnector } from './egress-connector';
import { FORBIDDEN_ADDRESS } from './egress-connector';
import { stripHopByHop } from './egress-http';
import type { EgressOutcome } from './egress-outcome';
import type { EgressTarget } from './egress-target';
import { hostHeaderOf } from './egress-target';
import { openUpstream } from './egress-upstream';
import type { UpstreamTimeouts } from './egress-upstream';

export interface ForwardDeps extends UpstreamTimeouts {
  connector: EgressConnector;
  log: Logger;
  track: (socket: Socket) => void;
  /** The upstream resolved to an address the proxy never reaches; the caller answers 403 and reports it. */
  refuseForbiddenAddress: () => void;
  /** What the host answered, or why it could not be reached (its socket error code). */
  onOutcome?: (outcome: EgressOutcome) => void;
}

/**
 * Forwards one absolute-URI request (`GET http://host/path`) over a fresh upstream connection:
 * hop-by-hop headers and Proxy-Authorization are dropped both ways, Host is the target's, and the
 * response streams back as it arrives. One upstream connection per request, closed after it.
 */
export function forwardRequest(
  req: IncomingMessage,
  res: ServerResponse,
  target: EgressTarget,
  deps: ForwardDeps,
): void {
  const headers = [...stripHopByHop(req.rawHeaders, ['host']), 'Host', hostHeaderOf(target)];
  const upstreamReq = request({
    host: target.host,
    port: target.port,
    method: req.method,
    path: target.path ?? '/',
    headers,
    createConnection: () => openUpstream(deps.connector, target, deps, deps.track),
  });

  upstreamReq.on('response', (upstreamRes) => {
    deps.onOutcome?.({ connected: true, status: upstreamRes.statusCode ?? 502, ...(upstreamRes.statusMessage ? { statusText: upstreamRes.statusMessage } : {}) });
    res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, stripHopByHop(upstreamRes.rawHeaders));
    upstreamRes.on('error', () => res.destroy());
    upstreamRes.pipe(res);
  });

  upstreamReq.on('error', (error: NodeJS.ErrnoException) => {
    deps.log.debug('egress forward failed', {
      host: target.host,
      port: target.port,
      code: error.code,
      message: error.message,
    });
    if (res.headersSent || res.destroyed) return void res.destroy();
    if (error.code === FORBIDDEN_ADDRESS) return deps.refuseForbiddenAddress();
    deps.onOutcome?.({ connected: false, ...(error.code ? { code: error.code } : {}) });
    const status = error.code === 'ETIMEDOUT' ? 504 : 502;
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    res.end(`Sandpit egress proxy: could not reach ${target.host}:${target.port} (${error.code ?? 'error'})\n`);
  });

  // The client went away before the answer was complete: stop the upstream too.
  res.once('close', () => {
    if (!res.writableFinished) upstreamReq.destroy();
  });
  req.on('error', () => upstreamReq.destroy());
  req.pipe(upstreamReq);
}
