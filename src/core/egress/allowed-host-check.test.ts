import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { SandpitError } from '../../shared/api/errors';
import { checkAllowedHost } from './allowed-host-check';

/** What the person reads when an entry is refused (the error's message), or the entry as it is kept. */
function outcome(entry: string): string {
  try {
    return `kept ${checkAllowedHost(entry)}`;
  } catch (error) {
    expect(error).toBeInstanceOf(SandpitError);
    expect((error as SandpitError).code).toBe('INVALID_INPUT');
    return (error as Error).message;
  }
}

const THIS_COMPUTER = /this computer.*so it cannot be an allowed host\.$/;
const LINK_LOCAL = /link-local address, where cloud machines serve their metadata.*so it cannot be an allowed host\.$/;
const METADATA = /cloud metadata service.*so it cannot be an allowed host\.$/;

// No name is resolved: names are judged by what they are, addresses in any spelling by the proxy's own rules.
describe('allowed hosts refuse what a sandbox may never reach, when they are entered', () => {
  it.each([
    // loopback, in every spelling a resolver accepts
    ['127.0.0.1', THIS_COMPUTER, '127.0.0.1'],
    ['127.9.9.9', THIS_COMPUTER, '127.9.9.9'],
    ['2130706433', THIS_COMPUTER, '127.0.0.1'],
    ['0x7f000001', THIS_COMPUTER, '127.0.0.1'],
    ['0X7F000001', THIS_COMPUTER, '127.0.0.1'],
    ['0x7f.0.0.1', THIS_COMPUTER, '127.0.0.1'],
    ['0177.0.0.1', THIS_COMPUTER, '127.0.0.1'],
    ['017700000001', THIS_COMPUTER, '127.0.0.1'],
    ['127.1', THIS_COMPUTER, '127.0.0.1'],
    ['127.0.1', THIS_COMPUTER, '127.0.0.1'],
    ['127.0.0.1.', THIS_COMPUTER, '127.0.0.1'],
    ['::1', THIS_COMPUTER, '::1'],
    ['[::1]', THIS_COMPUTER, '::1'],
    ['0:0:0:0:0:0:0:1', THIS_COMPUTER, '::1'],
    ['[::ffff:127.0.0.1]', THIS_COMPUTER, '::ffff:127.0.0.1'],
    ['::ffff:7f00:1', THIS_COMPUTER, '::ffff:7f00:1'],
    ['localhost', THIS_COMPUTER, 'localhost'],
    ['LOCALHOST', THIS_COMPUTER, '"LOCALHOST"'],
    ['localhost.', THIS_COMPUTER, 'localhost'],
    ['api.localhost', THIS_COMPUTER, 'api.localhost'],
    ['*.localhost', THIS_COMPUTER, 'localhost'],
    ['*.app.localhost', THIS_COMPUTER, 'app.localhost'],
    ['localhost.localdomain', THIS_COMPUTER, 'localhost.localdomain'],
    ['ip6-localhost', THIS_COMPUTER, 'ip6-localhost'],
    ['host.docker.internal', THIS_COMPUTER, 'host.docker.internal'],
    ['*.docker.internal', THIS_COMPUTER, 'host.docker.internal'],
    ['host.containers.internal', THIS_COMPUTER, 'host.containers.internal'],
    // link-local: where the metadata service answers
    ['169.254.169.254', LINK_LOCAL, '169.254.169.254'],
    ['0xa9fea9fe', LINK_LOCAL, '169.254.169.254'],
    ['2852039166', LINK_LOCAL, '169.254.169.254'],
    ['0251.0376.0251.0376', LINK_LOCAL, '169.254.169.254'],
    ['169.254.169.254.', LINK_LOCAL, '169.254.169.254'],
    ['[::ffff:169.254.169.254]', LINK_LOCAL, '::ffff:169.254.169.254'],
    ['fe80::1', LINK_LOCAL, 'fe80::1'],
    ['[fe80::a9fe:a9fe]', LINK_LOCAL, 'fe80::a9fe:a9fe'],
    // metadata services by name
    ['metadata.google.internal', METADATA, 'metadata.google.internal'],
    ['metadata.google.internal.', METADATA, 'metadata.google.internal'],
    ['METADATA.Google.Internal', METADATA, '"METADATA.Google.Internal"'],
    ['*.google.internal', METADATA, 'metadata.google.internal'],
    ['metadata.goog', METADATA, 'metadata.goog'],
    ['metadata', METADATA, 'metadata'],
    ['instance-data', METADATA, 'instance-data'],
    ['instance-data.ec2.internal', METADATA, 'instance-data.ec2.internal'],
    ['*.ec2.internal', METADATA, 'instance-data.ec2.internal'],
  ])('refuses %s and says why', (entry, why, named) => {
    const message = outcome(entry);
    expect(message).toMatch(why);
    expect(message).toContain(named);
  });

  it.each([
    ['0.0.0.0', /not an address of any one host/],
    ['0', /is the address 0\.0\.0\.0, which is not an address of any one host/],
    ['::', /not an address of any one host/],
    ['224.0.0.1', /not an address of any one host/],
    ['255.255.255.255', /not an address of any one host/],
    ['1.2.3.999', /looks like an address but is not a valid one/],
  ])('refuses %s (no host to reach)', (entry, why) => {
    expect(outcome(entry)).toMatch(why);
  });

  it('names the address a numeric spelling stands for', () => {
    expect(outcome('0x7f000001')).toBe('"0x7f000001" is the address 127.0.0.1, which is this computer: sandboxes never reach this computer\'s own addresses (Sandpit itself listens there), so it cannot be an allowed host.');
    expect(outcome('localhost')).toBe('"localhost" is this computer: sandboxes never reach this computer\'s own addresses (Sandpit itself listens there), so it cannot be an allowed host.');
  });

  it.each([
    ['files.example.org', 'files.example.org'],
    ['Files.Example.org.', 'files.example.org'],
    ['*.example.org', '*.example.org'],
    ['10.0.0.5', '10.0.0.5'],
    ['192.168.1.20', '192.168.1.20'],
    ['pypi.corp.internal', 'pypi.corp.internal'],
    ['*.corp.internal', '*.corp.internal'],
    ['metadata.example.org', 'metadata.example.org'],
    ['localhost.example.org', 'localhost.example.org'],
    ['2a04:4e42::223', '2a04:4e42::223'],
  ])('keeps %s (a real host, a LAN mirror)', (entry, kept) => {
    expect(outcome(entry)).toBe(`kept ${kept}`);
  });

  it('still refuses what is not a host, or too broad a wildcard, as before', () => {
    expect(outcome('not a host')).toMatch(/is not a hostname or a \*\.domain wildcard/);
    expect(outcome('*.org')).toMatch(/too broad/);
  });

  it("refuses an address of one of this computer's own interfaces (its LAN address, a Docker network's gateway)", () => {
    const own = Object.values(networkInterfaces()).flatMap((list) => list ?? []).find((entry) => entry.family === 'IPv4' && !entry.internal);
    // This machine runs Docker: its bridge's gateway (at least) is an interface address.
    expect(own, 'an IPv4 interface that is not loopback').toBeDefined();
    expect(outcome(own!.address)).toBe(`"${own!.address}" is an address of this computer (one of its network interfaces): sandboxes never reach this computer's own addresses, so it cannot be an allowed host.`);
    expect(outcome(`::ffff:${own!.address}`)).toMatch(/is an address of this computer \(one of its network interfaces\)/);
  });
});
