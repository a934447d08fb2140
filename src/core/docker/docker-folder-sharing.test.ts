import { describe, expect, it } from 'vitest';
import type { DockerClient, EngineEndpoint } from './docker-client';
import { dockerFolderSharing } from './docker-folder-sharing';

function sharing(endpoint: EngineEndpoint, platform: NodeJS.Platform = 'linux'): ReturnType<typeof dockerFolderSharing> {
  const docker = { endpoint } as DockerClient;
  return dockerFolderSharing({ docker, dataFolder: '/home/me/.config/Sandpit', protectedFolders: () => ['~/.ssh'], platform, env: {}, home: '/home/me' });
}

describe('shared folders on a Docker engine', () => {
  it('refuses a remote engine, saying why', () => {
    expect(sharing({ kind: 'remote', address: '10.0.0.5:2376 (TLS)' }).unavailable()).toMatch(/only with a Docker engine on this computer; this one is at 10\.0\.0\.5/);
    expect(sharing({ kind: 'local', address: '/var/run/docker.sock' }).unavailable()).toBeUndefined();
  });

  it('never shares the socket in use or the usual ones', () => {
    const { engineSockets } = sharing({ kind: 'local', address: '/srv/custom/docker.sock' }).checkContext();
    expect(engineSockets).toEqual(expect.arrayContaining(['/srv/custom/docker.sock', '/var/run/docker.sock', '/run/docker.sock', '/home/me/.docker/run/docker.sock']));
  });

  it('checks the sandbox user can reach a folder where owners are seen as they are (Docker on Linux), not under Docker Desktop', () => {
    expect(sharing({ kind: 'local', address: '/var/run/docker.sock' }).checkContext().sandboxUser).toEqual({ uid: 10001, gid: 10001 });
    expect(sharing({ kind: 'local', address: '/home/me/.docker/desktop/docker.sock', source: 'Docker Desktop' }).checkContext().sandboxUser).toBeUndefined();
    expect(sharing({ kind: 'local', address: '/Users/me/.docker/run/docker.sock' }, 'darwin').checkContext().sandboxUser).toBeUndefined();
  });

  it('reads the protected list from the settings each time', () => {
    expect(sharing({ kind: 'local', address: '/var/run/docker.sock' }).checkContext().protectedFolders).toEqual(['~/.ssh']);
  });
});
