import { afterEach, describe, expect, it } from 'vitest';
import { resolveChannel } from './docker-backend';
import type { EngineEndpoint } from './docker-client';

const LOCAL: EngineEndpoint = { kind: 'local', address: '/var/run/docker.sock' };
const REMOTE: EngineEndpoint = { kind: 'remote', address: 'tcp://10.0.0.5:2376' };

const platform = Object.getOwnPropertyDescriptor(process, 'platform');
const getuid = Object.getOwnPropertyDescriptor(process, 'getuid');

/** Pretends to run on `os` as user `uid` (undefined: a platform without getuid, i.e. Windows). */
function pretend(os: NodeJS.Platform, uid: number | undefined): void {
  Object.defineProperty(process, 'platform', { value: os, configurable: true });
  Object.defineProperty(process, 'getuid', {
    value: uid === undefined ? undefined : () => uid,
    configurable: true,
    writable: true,
  });
}

afterEach(() => {
  if (platform) Object.defineProperty(process, 'platform', platform);
  if (getuid) Object.defineProperty(process, 'getuid', getuid);
});

describe('resolveChannel', () => {
  it('uses the unix socket for a local engine on Linux when running as root', () => {
    pretend('linux', 0);
    expect(resolveChannel('auto', LOCAL)).toBe('socket');
  });

  it.each<[string, NodeJS.Platform, number | undefined, EngineEndpoint]>([
    ['a remote engine', 'linux', 0, REMOTE],
    ['macOS (the engine runs in a VM)', 'darwin', 0, LOCAL],
    ['Windows', 'win32', undefined, LOCAL],
    ['a non-root user (cannot hand the dir to the sandbox user)', 'linux', 1000, LOCAL],
  ])('attaches for %s', (_why, os, uid, endpoint) => {
    pretend(os, uid);
    expect(resolveChannel('auto', endpoint)).toBe('attach');
  });

  it('respects an explicit setting whatever the engine and platform', () => {
    pretend('linux', 0);
    expect(resolveChannel('attach', LOCAL)).toBe('attach');
    pretend('darwin', 501);
    expect(resolveChannel('socket', REMOTE)).toBe('socket');
    expect(resolveChannel('attach', REMOTE)).toBe('attach');
  });
});
