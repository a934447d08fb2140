import { isIP } from 'node:net';
import { SandpitError } from '../../shared/api/errors';
import { isIpLike, normalizeAllowEntry, normalizeHost } from './egress-allow-list';
import { forbiddenAddressKind } from './egress-connector';
import type { ForbiddenKind } from './egress-connector';

/** Names of this computer (RFC 6761 reserves localhost and everything under it; the rest are Debian's and the engines'). */
const THIS_COMPUTER = ['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback', 'host.docker.internal', 'gateway.docker.internal', 'host.containers.internal'];
/** Names of the cloud metadata services (they hand out the machine's credentials). */
const METADATA = ['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal'];

const WHY: Record<ForbiddenKind | 'metadata', string> = {
  loopback: "is this computer: sandboxes never reach this computer's own addresses (Sandpit itself listens there)",
  'own-interface': "is an address of this computer (one of its network interfaces): sandboxes never reach this computer's own addresses",
  'link-local': 'is a link-local address, where cloud machines serve their metadata and credentials: sandboxes never reach it',
  unrouted: 'is not an address of any one host (unspecified, multicast or broadcast)',
  metadata: 'is a cloud metadata service (it hands out the machine’s credentials): sandboxes never reach it',
};

function kindOfName(host: string): ForbiddenKind | 'metadata' | undefined {
  if (THIS_COMPUTER.includes(host) || host.endsWith('.localhost')) return 'loopback';
  if (METADATA.includes(host)) return 'metadata';
  return undefined;
}

/** The address a resolver reads from a numeric name (`0x7f000001`, `127.1`, `0177.0.0.1`), as the URL parser does; undefined if none. */
function numericAddress(host: string): string | undefined {
  try {
    const parsed = new URL(`http://${isIP(host) === 6 ? `[${host}]` : host}/`).hostname;
    return parsed.startsWith('[') ? parsed.slice(1, -1) : parsed;
  } catch {
    return undefined;
  }
}

/**
 * Why a canonical allow-list entry (normalizeAllowEntry's output) can never be reached through the egress proxy,
 * or undefined when it may be. Addresses, in any spelling a resolver accepts, are classified by the proxy's own
 * rules (forbiddenAddressKind); names of this computer and of metadata services are known; a wildcard is refused
 * when it would cover one of those names.
 */
export function unreachableHostReason(entry: string, shown = entry): string | undefined {
  const wildcard = entry.startsWith('*.');
  const host = wildcard ? entry.slice(2) : entry;
  if (wildcard) {
    if (kindOfName(host) === 'loopback') {
      return `"${shown}" covers ${host} and every name under it, which are this computer: sandboxes never reach this computer's own addresses (Sandpit itself listens there)`;
    }
    const covered = [...THIS_COMPUTER, ...METADATA].find((name) => name.endsWith(`.${host}`));
    const kind = covered === undefined ? undefined : kindOfName(covered);
    return covered === undefined || kind === undefined ? undefined : `"${shown}" would include ${covered}, which ${WHY[kind]}`;
  }
  const named = kindOfName(host);
  if (named) return `"${shown}" ${WHY[named]}`;
  if (!isIpLike(host)) return undefined;
  const address = numericAddress(host);
  if (address === undefined) return `"${shown}" looks like an address but is not a valid one`;
  const kind = forbiddenAddressKind(address);
  if (kind === undefined) return undefined;
  return address === host ? `"${shown}" ${WHY[kind]}` : `"${shown}" is the address ${address}, which ${WHY[kind]}`;
}

/**
 * One allowed host as a person (or a file) enters it: in canonical form, or INVALID_INPUT saying why not —
 * not a host, too broad a wildcard, or a host no sandbox may ever reach (this computer, link-local, metadata).
 */
export function checkAllowedHost(entry: string): string {
  const trimmed = entry.trim();
  const wildcard = trimmed.startsWith('*.');
  const host = normalizeHost(wildcard ? trimmed.slice(2) : trimmed);
  // Before the shape rules, so `*.localhost` is refused for what it is, not for being too broad.
  const reason = host === undefined ? undefined : unreachableHostReason(wildcard ? `*.${host}` : host, trimmed);
  if (reason !== undefined) throw new SandpitError('INVALID_INPUT', `${reason}, so it cannot be an allowed host.`);
  return normalizeAllowEntry(entry);
}
