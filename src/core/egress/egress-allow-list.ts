import { isIP } from 'node:net';
import { SandpitError } from '../../shared/api/errors';

/**
 * The egress allow-list: exact hostnames and `*.suffix` wildcards, compared case-insensitively.
 * `*.pythonhosted.org` matches `files.pythonhosted.org` (any depth) but not `pythonhosted.org` itself.
 * IP literals (and anything a resolver would read as one, like `127.1` or `0x7f.1`) only pass when
 * listed exactly; wildcards never match them.
 */
export interface AllowList {
  allows(host: string): boolean;
  readonly entries: readonly string[];
}

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** Lowercases, strips IPv6 brackets and one trailing dot. Returns undefined for anything that is not a host. */
export function normalizeHost(raw: string): string | undefined {
  let host = raw.trim().toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (isIP(host) === 6) return host;
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.length === 0 || host.length > 253) return undefined;
  return host.split('.').every((label) => LABEL.test(label)) ? host : undefined;
}

/** True for IP literals and for names a resolver would parse as an IPv4 address (last label numeric or hex). */
export function isIpLike(host: string): boolean {
  if (isIP(host) !== 0) return true;
  const last = host.split('.').pop() ?? '';
  return /^(0x[0-9a-f]*|[0-9]+)$/i.test(last);
}

/** One allow-list entry in canonical form (`files.example.org` or `*.example.org`); throws INVALID_INPUT when it is neither. */
export function normalizeAllowEntry(entry: string): string {
  const wildcard = entry.trim().startsWith('*.');
  const host = normalizeHost(wildcard ? entry.trim().slice(2) : entry);
  if (host === undefined)
    throw new SandpitError('INVALID_INPUT', `"${entry}" is not a hostname or a *.domain wildcard`);
  if (!wildcard) return host;
  if (isIpLike(host) || !host.includes('.'))
    throw new SandpitError(
      'INVALID_INPUT',
      `"${entry}" is too broad: a wildcard needs a domain with at least two labels`,
    );
  return `*.${host}`;
}

/** Compiles allow-list entries; throws INVALID_INPUT on an entry that is not a host or a `*.a.b` wildcard. */
export function compileAllowList(entries: readonly string[]): AllowList {
  const canonical = [...new Set(entries.map(normalizeAllowEntry))];
  const exact = new Set(canonical.filter((e) => !e.startsWith('*.')));
  const suffixes = canonical.filter((e) => e.startsWith('*.')).map((e) => e.slice(1));
  return {
    entries: canonical,
    allows: (raw: string): boolean => {
      const host = normalizeHost(raw);
      if (host === undefined) return false;
      if (exact.has(host)) return true;
      if (isIpLike(host)) return false;
      return suffixes.some((suffix) => host.endsWith(suffix));
    },
  };
}

/** Hosts that serve the files of a well-known index, so allowing the index allows its downloads too. */
const COMPANION_HOSTS: Record<string, readonly string[]> = {
  'pypi.org': ['files.pythonhosted.org'],
  'test.pypi.org': ['test-files.pythonhosted.org'],
  // npm serves tarballs from the registry host itself; yarn's alias serves the same packages.
  'registry.npmjs.org': [],
  'registry.yarnpkg.com': ['registry.npmjs.org'],
};

function hostOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SandpitError('INVALID_INPUT', `"${url}" is not a URL`);
  }
  const host = normalizeHost(parsed.hostname);
  if (host === undefined) throw new SandpitError('INVALID_INPUT', `"${url}" has no usable host`);
  return host;
}

/**
 * The allow-list for the `packages` network policy: the hosts of the index URLs (pip index, npm
 * registry), the hosts that serve their files (files.pythonhosted.org for pypi.org), and `extra`.
 */
export function allowedHostsFromUrls(urls: string[], extra: string[]): string[] {
  const hosts: string[] = [];
  for (const url of urls) {
    const host = hostOf(url);
    hosts.push(host, ...(COMPANION_HOSTS[host] ?? []));
  }
  hosts.push(...extra);
  return [...new Set(hosts.map(normalizeAllowEntry))];
}

/** Ports 80 and 443 plus any explicit port in the URLs (a mirror on :3141), for the proxy's `allowedPorts`. */
export function allowedPortsFromUrls(urls: string[]): number[] {
  const ports = new Set([80, 443]);
  for (const url of urls) {
    hostOf(url);
    const port = new URL(url).port;
    if (port !== '') ports.add(Number(port));
  }
  return [...ports].sort((a, b) => a - b);
}
