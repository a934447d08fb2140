import { describe, expect, it } from 'vitest';
import { SandpitError } from '../../shared/api/errors';
import {
  allowedHostsFromUrls,
  allowedPortsFromUrls,
  compileAllowList,
  isIpLike,
  normalizeHost,
} from './egress-allow-list';
import { isForbiddenAddress } from './egress-connector';

describe('egress allow-list', () => {
  it('matches exact names case-insensitively, with or without a trailing dot', () => {
    const list = compileAllowList(['PyPI.org', 'registry.npmjs.org.']);
    expect(list.allows('pypi.org')).toBe(true);
    expect(list.allows('PYPI.ORG.')).toBe(true);
    expect(list.allows('registry.npmjs.org')).toBe(true);
    expect(list.allows('evil-pypi.org')).toBe(false);
    expect(list.allows('pypi.org.evil.invalid')).toBe(false);
    expect(list.allows('sub.pypi.org')).toBe(false);
  });

  it('matches *.suffix wildcards on subdomains only', () => {
    const list = compileAllowList(['*.pythonhosted.org']);
    expect(list.allows('files.pythonhosted.org')).toBe(true);
    expect(list.allows('a.b.pythonhosted.org')).toBe(true);
    expect(list.allows('pythonhosted.org')).toBe(false);
    expect(list.allows('pythonhosted.org.evil.invalid')).toBe(false);
    expect(list.allows('evilpythonhosted.org')).toBe(false);
  });

  it('lets IP literals (and numeric forms a resolver would accept) through only when listed exactly', () => {
    const list = compileAllowList(['10.0.0.5', '*.example.org']);
    expect(list.allows('10.0.0.5')).toBe(true);
    expect(list.allows('10.0.0.6')).toBe(false);
    expect(list.allows('127.1')).toBe(false);
    expect(list.allows('0x7f.1')).toBe(false);
    expect(list.allows('2130706433')).toBe(false);
    expect(isIpLike('1.2.3.example.org')).toBe(false);
    expect(isIpLike('example.0x10')).toBe(true);
    expect(list.allows('1.2.3.4.example.org')).toBe(true);
  });

  it('rejects entries that are not hosts, and wildcards that are too broad', () => {
    for (const bad of ['*', '*.com', '*.1.2', 'http://pypi.org', 'a b', '', 'pypi.org:443']) {
      expect(() => compileAllowList([bad]), bad).toThrow(SandpitError);
    }
    expect(normalizeHost('[::1]')).toBe('::1');
    expect(normalizeHost('bad_host!')).toBeUndefined();
  });

  it('derives hosts from index URLs and adds the file hosts of well-known indexes', () => {
    expect(
      allowedHostsFromUrls(['https://pypi.org/simple', 'https://registry.npmjs.org/'], ['*.Example.org', 'pypi.org']),
    ).toEqual(['pypi.org', 'files.pythonhosted.org', 'registry.npmjs.org', '*.example.org']);
    expect(allowedHostsFromUrls(['http://mirror.lan:3141/root/pypi/+simple/'], [])).toEqual(['mirror.lan']);
    expect(allowedPortsFromUrls(['http://mirror.lan:3141/simple', 'https://registry.npmjs.org/'])).toEqual([
      80, 443, 3141,
    ]);
    expect(() => allowedHostsFromUrls(['not a url'], [])).toThrow(SandpitError);
  });

  it('knows which resolved addresses the default connector never reaches', () => {
    for (const address of [
      '127.0.0.1',
      '127.9.9.9',
      '0.0.0.0',
      '169.254.169.254',
      '::1',
      '::',
      'fe80::1',
      '::ffff:127.0.0.1',
      '224.0.0.1',
    ]) {
      expect(isForbiddenAddress(address), address).toBe(true);
    }
    for (const address of ['10.0.0.1', '192.168.1.10', '151.101.0.223', '2a04:4e42::223']) {
      expect(isForbiddenAddress(address), address).toBe(false);
    }
  });
});
