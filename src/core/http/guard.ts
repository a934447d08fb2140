import type { IncomingHttpHeaders } from 'node:http';
import type { ErrorBody } from '../../shared/api/errors';
import { principalOf, tokensEqual } from '../connect/token';

/**
 * The request guard as pure decisions, applied in this order to every request:
 * Host (DNS rebinding) → Origin (cross-site) → preflight → bearer token → JSON content type.
 * The body limit and the per-token concurrency limit follow in the server, around the handler.
 */

export interface GuardRequest {
  method: string;
  headers: IncomingHttpHeaders;
  /** The route serves this request without a token (GET /health, the panel's files). */
  isPublic: boolean;
  /** The route is the web panel's own API (/api): only the panel token opens it. */
  isPanel?: boolean;
}

export interface GuardSettings {
  /** The port we listen on (the real one, also when asked for port 0). */
  port: number;
  /** The clients' token (MCP over HTTP, REST): it acts as its own principal, owning its sandboxes. */
  token: string;
  /** The web panel's token (in the panel link's URL fragment): it acts as the panel, which sees everything. */
  panelToken?: string;
}

/** The principal of a request made with the panel token: handlers treat it as the panel (all sessions). */
export const PANEL_PRINCIPAL = 'panel';

export type GuardDecision =
  | { kind: 'allow'; principal: string | undefined }
  /** An OPTIONS preflight from one of our origins: 204 with no CORS allow headers. */
  | { kind: 'preflight' }
  | { kind: 'reject'; status: number; error: ErrorBody; headers?: Record<string, string> };

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'] as const;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** `Host` values we answer to: a loopback name with our port (bare names only on port 80). */
export function allowedHosts(port: number): string[] {
  const hosts = LOOPBACK_NAMES.map((name) => `${name}:${port}`);
  return port === 80 ? [...hosts, ...LOOPBACK_NAMES] : hosts;
}

/** Our own origins: the only ones a browser page may call us from. */
export function allowedOrigins(port: number): string[] {
  return allowedHosts(port).map((host) => `http://${host}`);
}

export function isAllowedHost(host: string | undefined, port: number): boolean {
  return host !== undefined && allowedHosts(port).includes(host.toLowerCase());
}

/** An absent Origin is fine (non-browser clients); a present one, `null` included, must be ours. */
export function isAllowedOrigin(origin: string | undefined, port: number): boolean {
  return origin === undefined || allowedOrigins(port).includes(origin.toLowerCase());
}

/** The token of `Authorization: Bearer <token>`, or undefined. Never read from the query string. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(authorization ?? '');
  return match?.[1];
}

/** `application/json`, optionally with a UTF-8 charset; nothing else. */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [type, ...params] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((param) => param === '' || /^charset="?utf-8"?$/.test(param));
}

export function methodHasBody(method: string): boolean {
  return BODY_METHODS.has(method);
}

function reject(
  status: number,
  code: ErrorBody['code'],
  message: string,
  headers?: Record<string, string>,
): GuardDecision {
  return { kind: 'reject', status, error: { code, message }, ...(headers ? { headers } : {}) };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function guardRequest(request: GuardRequest, settings: GuardSettings): GuardDecision {
  const { headers, method } = request;
  const { port } = settings;
  if (!isAllowedHost(headers.host, port)) {
    return reject(403, 'DENIED', `Sandpit only answers requests addressed to 127.0.0.1:${port} or localhost:${port}.`);
  }
  if (!isAllowedOrigin(single(headers.origin), port)) {
    return reject(403, 'DENIED', 'Requests from other web sites are not allowed.');
  }
  if (method === 'OPTIONS') return { kind: 'preflight' };
  let principal: string | undefined;
  if (!request.isPublic) {
    const presented = bearerToken(headers.authorization);
    const isPanelToken = presented !== undefined && settings.panelToken !== undefined && tokensEqual(presented, settings.panelToken);
    if (presented === undefined || (!isPanelToken && !tokensEqual(presented, settings.token))) {
      return reject(
        401,
        'UNAUTHORIZED',
        'A valid access token is required (Authorization: Bearer <token>). The token is in the "token" file of the Sandpit data folder.',
        {
          'www-authenticate': 'Bearer realm="sandpit"',
        },
      );
    }
    principal = isPanelToken ? PANEL_PRINCIPAL : principalOf(settings.token);
    if (request.isPanel && !isPanelToken) {
      // The clients' token (handed to every assistant) must never act as the person at the panel.
      return reject(403, 'DENIED', 'This endpoint belongs to the Sandpit panel. Assistants use /mcp or the REST endpoints.');
    }
  }
  if (methodHasBody(method)) {
    const encoding = headers['content-encoding'];
    if (
      !isJsonContentType(headers['content-type']) ||
      (encoding !== undefined && encoding.toLowerCase() !== 'identity')
    ) {
      return reject(
        415,
        'INVALID_INPUT',
        'Send the body as JSON: Content-Type: application/json (UTF-8, not compressed).',
      );
    }
  }
  return { kind: 'allow', principal };
}
