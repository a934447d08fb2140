import { SandpitError } from '../../shared/api/errors';
import { normalizeHost } from './egress-allow-list';
import { checkAllowedHost } from './allowed-host-check';

/** One host a secret may be sent to: a name (or `*.domain`, one label) and the port (443 unless given). */
export interface SecretHost {
  host: string;
  port: number;
}

/**
 * A secret's host as a person enters it (`api.example.com`, `api.example.com:8443`, `*.example.com`) in canonical
 * form, or INVALID_INPUT saying why not: the allowed-host rules (never this computer, link-local or metadata).
 */
export function parseSecretHost(entry: string): SecretHost {
  const match = /^(.*?)(?::([0-9]{1,5}))?$/.exec(entry.trim());
  const name = match?.[1] ?? '';
  const port = match?.[2] === undefined ? 443 : Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new SandpitError('INVALID_INPUT', `"${entry}": the port must be 1–65535.`);
  return { host: checkAllowedHost(name), port };
}

/** `host` or `host:port` (443 is left out). */
export function secretHostText(host: SecretHost): string {
  return host.port === 443 ? host.host : `${host.host}:${host.port}`;
}

/** Whether a request to `host:port` is one of the secret's hosts: exact, or exactly one label under a `*.` entry. */
export function secretHostMatches(entry: SecretHost, rawHost: string, port: number): boolean {
  const host = normalizeHost(rawHost);
  if (host === undefined || port !== entry.port) return false;
  if (!entry.host.startsWith('*.')) return host === entry.host;
  const suffix = entry.host.slice(1);
  if (!host.endsWith(suffix)) return false;
  const label = host.slice(0, -suffix.length);
  return label.length > 0 && !label.includes('.');
}
