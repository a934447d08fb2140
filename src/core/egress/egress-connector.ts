import { lookup } from 'node:dns';
import { BlockList, Socket, connect, isIP } from 'node:net';
import type { LookupFunction } from 'node:net';

/** Opens the upstream TCP connection for an allowed host. Called only after the allow-list passed. */
export type EgressConnector = (host: string, port: number) => Socket;

/** The error code a connector fails with when the host resolves to an address the proxy must never reach. */
export const FORBIDDEN_ADDRESS = 'EGRESS_FORBIDDEN_ADDRESS';

/**
 * Addresses an allowed *name* may still not lead to: loopback (Sandpit's own API listens there),
 * link-local (cloud metadata at 169.254.169.254), unspecified, multicast and broadcast. Private LAN
 * ranges stay reachable, so a mirror on the local network works. IPv4-mapped IPv6 forms count as their IPv4.
 */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:7f00:0', 104, 'ipv6');
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');
LINK_LOCAL.addSubnet('::ffff:a9fe:0', 112, 'ipv6');
const UNROUTED = new BlockList();
UNROUTED.addSubnet('0.0.0.0', 8, 'ipv4');
UNROUTED.addSubnet('224.0.0.0', 3, 'ipv4');
UNROUTED.addAddress('::', 'ipv6');
UNROUTED.addSubnet('ff00::', 8, 'ipv6');
UNROUTED.addSubnet('::ffff:0:0', 104, 'ipv6');
UNROUTED.addSubnet('::ffff:e000:0', 99, 'ipv6');

/** Why the proxy never connects to an address: this computer, link-local (metadata), or no host at all (unspecified, multicast, broadcast). */
export type ForbiddenKind = 'loopback' | 'link-local' | 'unrouted';

/** The kind of forbidden address this is, or undefined for one the proxy may reach (`address` must be an IP literal). */
export function forbiddenAddressKind(address: string): ForbiddenKind | undefined {
  const family = isIP(address);
  if (family === 0) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(address, type)) return 'loopback';
  if (LINK_LOCAL.check(address, type)) return 'link-local';
  if (UNROUTED.check(address, type)) return 'unrouted';
  return undefined;
}

/** True for loopback, link-local, unspecified, multicast and broadcast addresses, and for anything that is not an IP. */
export function isForbiddenAddress(address: string): boolean {
  return isIP(address) === 0 || forbiddenAddressKind(address) !== undefined;
}

function forbiddenError(host: string, address: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(
    `${host} resolves to ${address}, which the egress proxy never connects to`,
  );
  error.code = FORBIDDEN_ADDRESS;
  return error;
}

/** dns.lookup that fails when any answer is a forbidden address (so a name cannot be pointed at loopback). */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const bad = addresses.find((a) => isForbiddenAddress(a.address));
    if (bad) return callback(forbiddenError(hostname, bad.address), []);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    if (options.all === true) return callback(null, addresses);
    return callback(null, first.address, first.family);
  });
};

/** The production connector: net.connect with a lookup that refuses loopback, link-local and friends. */
export const guardedConnector: EgressConnector = (host, port) => {
  if (isIP(host) !== 0 && isForbiddenAddress(host)) {
    const socket = new Socket();
    process.nextTick(() => socket.destroy(forbiddenError(host, host)));
    return socket;
  }
  return connect({ host, port, lookup: guardedLookup });
};
