import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../log';
import { endGracefully, rawResponse } from './egress-http';
import { refusalText } from './egress-target';
import type { EgressRefusalReason } from './egress-target';

/** What `onRefused` receives; the payload of the proposed `egress.refused` event (client = sessionId). */
export interface EgressRefusal {
  host: string;
  port: number;
  /** ISO 8601. */
  time: string;
  reason: EgressRefusalReason;
  /** The owner of the valid credential the request carried (absent when it carried none: a 407). */
  client?: string;
}

export interface RefusalDeps {
  log: Logger;
  /** Must not throw (a throw is logged and swallowed). */
  onRefused(event: EgressRefusal): void;
  /** The owner the connection authenticated as for this request (undefined: none). */
  ownerOf: (socket: Socket) => string | undefined;
  /** Counts one refusal. */
  counted: () => void;
}

export interface Refusals {
  /** Answers on a raw socket (CONNECT, Upgrade) and ends it. */
  onSocket(req: IncomingMessage, socket: Duplex, host: string, port: number, reason: EgressRefusalReason): void;
  /** Answers a plain-HTTP request and ends the connection. */
  onResponse(req: IncomingMessage, res: ServerResponse, host: string, port: number, reason: EgressRefusalReason): void;
}

const CHALLENGE = { 'Proxy-Authenticate': 'Basic realm="Sandpit egress proxy"', 'X-Sandpit-Refused': 'proxy-auth-required' };

/** A 407 with a Basic challenge when the credential is missing or dead, else a 403 naming the reason. */
function statusAndHeaders(reason: EgressRefusalReason): { status: number; headers: Record<string, string> } {
  return reason === 'proxy-auth-required' ? { status: 407, headers: CHALLENGE } : { status: 403, headers: { 'X-Sandpit-Refused': reason } };
}

/**
 * How the egress proxy says no: the answer (407 or 403, the reason in plain words), then one log line
 * (with the peer's address) and one `onRefused` event, attributed to the credential's owner only.
 */
export function egressRefusals(deps: RefusalDeps): Refusals {
  const report = (req: IncomingMessage, host: string, port: number, reason: EgressRefusalReason): void => {
    deps.counted();
    const client = reason === 'proxy-auth-required' ? undefined : deps.ownerOf(req.socket);
    const event: EgressRefusal = { host, port, time: new Date().toISOString(), reason, ...(client === undefined ? {} : { client }) };
    deps.log.info('refused egress', { ...event, source: req.socket.remoteAddress });
    try {
      deps.onRefused(event);
    } catch (error) {
      deps.log.warn('onRefused listener failed', { message: error instanceof Error ? error.message : String(error) });
    }
  };
  return {
    onSocket: (req, socket, host, port, reason): void => {
      const { status, headers } = statusAndHeaders(reason);
      endGracefully(socket, rawResponse(status, refusalText(host, port, reason), headers));
      report(req, host, port, reason);
    },
    onResponse: (req, res, host, port, reason): void => {
      const { status, headers } = statusAndHeaders(reason);
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers, connection: 'close' });
      res.end(`${refusalText(host, port, reason)}\n`);
      report(req, host, port, reason);
    },
  };
}
