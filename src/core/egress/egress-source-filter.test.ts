import { describe, expect, it } from 'vitest';
import { isWildcardAddress, sourceFilter } from './egress-source-filter';

describe('sourceFilter', () => {
  it('accepts peers inside the subnet only, IPv4-mapped forms included', () => {
    const filter = sourceFilter('172.20.0.0/16');
    expect(filter.subnet).toBe('172.20.0.0/16');
    for (const inside of ['172.20.0.1', '172.20.0.2', '172.20.255.254', '::ffff:172.20.0.9', '::FFFF:172.20.3.4']) {
      expect(filter.allows(inside), inside).toBe(true);
    }
    for (const outside of ['172.21.0.2', '172.19.255.255', '127.0.0.1', '10.0.0.1', '::1', '::ffff:172.21.0.2', 'fe80::1', '', undefined]) {
      expect(filter.allows(outside), String(outside)).toBe(false);
    }
  });

  it('takes any prefix from /8 to /32 and refuses wider or malformed subnets', () => {
    expect(sourceFilter('127.0.0.1/32').allows('127.0.0.1')).toBe(true);
    expect(sourceFilter('127.0.0.1/32').allows('127.0.0.2')).toBe(false);
    expect(sourceFilter('10.0.0.0/8').allows('10.255.0.1')).toBe(true);
    for (const bad of ['0.0.0.0/0', '10.0.0.0/7', '10.0.0.0/33', '10.0.0.0', '10.0.0/24', 'fd00::/64', '', 'any']) {
      expect(() => sourceFilter(bad), bad).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    }
  });
});

describe('isWildcardAddress', () => {
  it('knows the every-interface addresses', () => {
    for (const host of ['0.0.0.0', '::', '', '::0', '0:0:0:0:0:0:0:0']) expect(isWildcardAddress(host), host).toBe(true);
    for (const host of ['127.0.0.1', '172.20.0.1', '::1']) expect(isWildcardAddress(host), host).toBe(false);
  });
});
