import { BlockList, isIP, isIPv4 } from 'node:net';
import { SandpitError } from '../../shared/api/errors';

export interface SourceFilter {
  /** The IPv4 subnet (CIDR) whose addresses may connect. */
  subnet: string;
  /** Whether a peer address (as `socket.remoteAddress` gives it) is inside the subnet. */
  allows(address: string | undefined): boolean;
}

const CIDR = /^([0-9.]+)\/([0-9]{1,2})$/;
/** Docker's bridge subnets are /16 to /28; anything wider than a /8 is a mistake that would let half the world in. */
const WIDEST_PREFIX = 8;

/** Addresses a listener must never bind: every interface at once. */
export function isWildcardAddress(host: string): boolean {
  return host === '' || host === '0.0.0.0' || host === '::' || host === '0:0:0:0:0:0:0:0' || host === '::0';
}

/** The plain IPv4 form of an IPv4-mapped IPv6 peer (`::ffff:10.0.0.2`), else the address as given. */
function plainAddress(address: string): string {
  const mapped = /^::ffff:([0-9.]+)$/i.exec(address);
  return mapped && isIPv4(mapped[1]!) ? mapped[1]! : address;
}

/** Accepts peers inside one IPv4 subnet only; throws INVALID_INPUT for a subnet that is not a CIDR or wider than a /8. */
export function sourceFilter(subnet: string): SourceFilter {
  const match = CIDR.exec(subnet.trim());
  const prefix = match ? Number(match[2]) : NaN;
  if (!match || !isIPv4(match[1]!) || !Number.isInteger(prefix) || prefix < WIDEST_PREFIX || prefix > 32) {
    throw new SandpitError('INVALID_INPUT', `The egress proxy's allowed source must be an IPv4 subnet between /${WIDEST_PREFIX} and /32: ${JSON.stringify(subnet)}.`);
  }
  const list = new BlockList();
  list.addSubnet(match[1]!, prefix, 'ipv4');
  return {
    subnet: `${match[1]!}/${prefix}`,
    allows: (address: string | undefined): boolean => {
      if (address === undefined) return false;
      const plain = plainAddress(address);
      return isIP(plain) === 4 && list.check(plain, 'ipv4');
    },
  };
}
