import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { AllowList } from './egress-allow-list';
import { isIpLike, normalizeHost } from './egress-allow-list';

/** Why the proxy refused a request (the `reason` of an `egress.refused` event). */
export type EgressRefusalReason =
  | 'proxy-auth-required'
  | 'not-a-proxy-request'
  | 'bad-target'
  | 'scheme-not-supported'
  | 'method-not-allowed'
  | 'upgrade-not-supported'
  | 'port-not-allowed'
  | 'ip-literal-not-allowed'
  | 'host-not-allowed'
  | 'forbidden-address';

const REASON_TEXT: Record<EgressRefusalReason, string> = {
  'proxy-auth-required': "this proxy serves Sandpit's own containers only: a valid Proxy-Authorization is required",
  'not-a-proxy-request': 'only CONNECT host:port and absolute-URI requests (GET http://host/...) are served',
  'bad-target': 'the request target is not a valid host and port',
  'scheme-not-supported': 'only http:// is forwarded; use CONNECT for https',
  'method-not-allowed': 'this method is not forwarded',
  'upgrade-not-supported': 'protocol upgrades are not forwarded',
  'port-not-allowed': 'this port is not allowed',
  'ip-literal-not-allowed': 'IP addresses are not on the allow-list',
  'host-not-allowed': 'this host is not on the allow-list of package indexes',
  'forbidden-address': 'this host resolves to an address of this computer (loopback or one of its interfaces) or a link-local one',
};

const PLAIN_WORDS: Partial<Record<EgressRefusalReason, string>> = {
  'host-not-allowed': 'not a package index, and not on this environment’s list of allowed hosts',
  'port-not-allowed': 'only the usual web ports (80, 443) are allowed',
  'ip-literal-not-allowed': 'addresses given as numbers are not allowed, only names',
  'forbidden-address': 'the name points at this computer or its local network',
  'method-not-allowed': 'only downloads are allowed',
  'proxy-auth-required': 'it was not one of Sandpit’s own sandboxes',
};

/** Why the proxy blocked a host, for a person: "blocked: <this>". */
export function refusalWords(reason: EgressRefusalReason): string {
  return PLAIN_WORDS[reason] ?? REASON_TEXT[reason] ?? reason;
}

/** The body of a 403: what was refused and why, in plain words. */
export function refusalText(host: string, port: number, reason: EgressRefusalReason): string {
  return `Sandpit egress proxy refused ${host || '(no host)'}:${port}: ${REASON_TEXT[reason]} (${reason}).`;
}

export interface EgressTarget {
  /** Normalized: lowercase, no brackets, no trailing dot. */
  host: string;
  port: number;
  /** Path and query for a forwarded plain-HTTP request; undefined for a CONNECT tunnel. */
  path?: string;
}

export type TargetDecision =
  { ok: true; target: EgressTarget } | { ok: false; reason: EgressRefusalReason; host: string; port: number };

export interface TargetPolicy {
  allowList: AllowList;
  allowedPorts: ReadonlySet<number>;
}

const AUTHORITY = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/@\s]+):([0-9]{1,5})$/;

function parsePort(text: string): number | undefined {
  const port = Number(text);
  return Number.isInteger(port) && port >= 1 && port <= 65_535 ? port : undefined;
}

/** Applies the host (IP literals included) and port rules. Pure: never resolves anything. */
export function decideTarget(policy: TargetPolicy, rawHost: string, port: number, path?: string): TargetDecision {
  const host = normalizeHost(rawHost);
  if (host === undefined) return { ok: false, reason: 'bad-target', host: rawHost.slice(0, 256), port };
  if (!policy.allowList.allows(host))
    return { ok: false, reason: isIpLike(host) ? 'ip-literal-not-allowed' : 'host-not-allowed', host, port };
  if (!policy.allowedPorts.has(port)) return { ok: false, reason: 'port-not-allowed', host, port };
  return { ok: true, target: { host, port, ...(path === undefined ? {} : { path }) } };
}

/** The target of `CONNECT host:port`. */
export function connectTarget(policy: TargetPolicy, requestTarget: string): TargetDecision {
  const match = AUTHORITY.exec(requestTarget);
  const port = match ? parsePort(match[2]!) : undefined;
  if (!match || port === undefined)
    return { ok: false, reason: 'bad-target', host: requestTarget.slice(0, 256), port: 0 };
  return decideTarget(policy, match[1]!, port);
}

/** The target of an absolute-URI request (`GET http://host/path`). Origin-form (`GET /`) is not a proxy request. */
export function absoluteUriTarget(policy: TargetPolicy, req: IncomingMessage): TargetDecision {
  const raw = req.url ?? '';
  const hostHeader = (req.headers.host ?? '').slice(0, 256);
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw))
    return { ok: false, reason: 'not-a-proxy-request', host: hostHeader, port: 0 };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'bad-target', host: hostHeader, port: 0 };
  }
  // WHATWG parsing already turned `0x7f.1` into 127.0.0.1 and IDNs into punycode; that host is what we connect to.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (url.protocol !== 'http:')
    return { ok: false, reason: 'scheme-not-supported', host, port: parsePort(url.port) ?? 0 };
  const port = url.port === '' ? 80 : (parsePort(url.port) ?? 0);
  return decideTarget(policy, host, port, `${url.pathname}${url.search}`);
}

/** `host:port` as it goes in a Host header. */
export function hostHeaderOf(target: EgressTarget): string {
  const host = isIP(target.host) === 6 ? `[${target.host}]` : target.host;
  return target.port === 80 ? host : `${host}:${target.port}`;
}
