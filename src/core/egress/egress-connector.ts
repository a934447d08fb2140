import { lookup } from 'node:dns';
import { BlockList, Socket, connect, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { LookupFunction } from 'node:net';

/** Opens the upstream TCP connection for an allowed host. Called only after the allow-list passed. */
export type EgressConnector = (host: string, port: number) => Socket;

/** The error code a connector fails with when the host resolves to an address the proxy must never reach. */
export const FORBIDDEN_ADDRESS = 'EGRESS_FORBIDDEN_ADDRESS';

/**
 * Addresses an allowed *name* may still not lead to: loopback (Sandpit's own API listens there), this
 * computer's own interface addresses, link-local (cloud metadata at 169.254.169.254), unspecified, multicast
 * and broadcast. Other private LAN addresses stay reachable, so a mirror on the local network works.
 * IPv4-mapped IPv6 forms count as their IPv4.
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

/**
 * Why the proxy never connects to an address: this computer (loopback, or an address of one of its own network
 * interfaces: its LAN address, the gateways of Docker's networks), link-local (metadata), or no host at all
 * (unspecified, multicast, broadcast).
 */
export type ForbiddenKind = 'loopback' | 'own-interface' | 'link-local' | 'unrouted';

/** The addresses of this computer's network interfaces, read each time (interfaces and Docker's networks come and go). */
function ownInterfaceAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const entry of list ?? []) own.add(entry.address.toLowerCase().replace(/%.*$/, ''));
  return own;
}

/** The kind of forbidden address this is, or undefined for one the proxy may reach (`address` must be an IP literal). */
export function forbiddenAddressKind(address: string): ForbiddenKind | undefined {
  const family = isIP(address);
  if (family === 0) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(address, type)) return 'loopback';
  if (LINK_LOCAL.check(address, type)) return 'link-local';
  if (UNROUTED.check(address, type)) return 'unrouted';
  if (ownInterfaceAddresses().has(mappedIpv4(address.toLowerCase()))) return 'own-interface';
  return undefined;
}

/** An IPv4-mapped IPv6 address (`::ffff:192.0.2.2`, `::ffff:c000:202`) as its IPv4; any other address as it is. */
function mappedIpv4(address: string): string {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted?.[1]) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address);
  if (!hex?.[1] || !hex[2]) return address;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
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
