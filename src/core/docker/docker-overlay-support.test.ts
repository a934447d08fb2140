// When a Docker (or Podman) engine is said to mount overlays over this computer's folders: never on macOS or
// Windows, through Docker Desktop's file sharing, over TCP, on another computer or rootless; elsewhere only
// when a real container did it (here a stand-in engine answers; the real one is in review-overlay.docker.test.ts).
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { currentIdentity } from '../sandbox/instance-identity';
import type { DockerClient, EngineEndpoint, ExecResult } from './docker-client';
import { dockerOverlaySupport } from './docker-overlay-support';

interface Engine {
  docker: DockerClient;
  runs: number;
  volumes: string[];
}

function engine(
  endpoint: EngineEndpoint,
  answer: { rootless?: boolean; run?: ExecResult; volumeError?: string },
): Engine {
  const made: Engine = { runs: 0, volumes: [], docker: undefined as unknown as DockerClient };
  made.docker = {
    endpoint,
    ping: () =>
      Promise.resolve({
        product: 'docker',
        version: '20.10',
        apiVersion: '1.41',
        os: 'linux',
        runtimes: ['runc'],
        rootless: answer.rootless === true,
      }),
    createVolume: (spec: { name: string }) => {
      if (answer.volumeError) return Promise.reject(new Error(answer.volumeError));
      made.volumes.push(spec.name);
      return Promise.resolve(spec.name);
    },
    removeVolume: (name: string) => {
      made.volumes = made.volumes.filter((v) => v !== name);
      return Promise.resolve();
    },
    runToCompletion: () => {
      made.runs += 1;
      return Promise.resolve(answer.run ?? { exitCode: 0, stdout: '', stderr: '', timedOut: false });
    },
  } as unknown as DockerClient;
  return made;
}

const LOCAL: EngineEndpoint = { kind: 'local', address: '/var/run/docker.sock' };

describe('overlays on a Docker engine', () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });
  const dirs = async (): Promise<{ person: string; layer: string }> => {
    root = await mkdtemp(join(tmpdir(), 'sandpit-overlay-support-'));
    await mkdir(join(root, 'person'));
    await mkdir(join(root, 'review-layers', 'rv-test1'), { recursive: true });
    return { person: join(root, 'person'), layer: join(root, 'review-layers', 'rv-test1') };
  };
  const support = (
    e: Engine,
    platform: NodeJS.Platform = 'linux',
    asTheyAre = true,
  ): ReturnType<typeof dockerOverlaySupport> =>
    dockerOverlaySupport({
      docker: e.docker,
      identity: currentIdentity(),
      probeImage: () => Promise.resolve('img'),
      platform,
      foldersAsTheyAre: () => asTheyAre,
    });

  it("says no, with why, where the engine cannot see this computer's folders as they are, or runs rootless", async () => {
    const { person, layer } = await dirs();
    const cases: Array<[Engine, NodeJS.Platform, boolean, string]> = [
      [
        engine(LOCAL, {}),
        'darwin',
        false,
        'Docker Desktop runs its engine in a virtual machine, which cannot mount an overlay over a folder of this computer',
      ],
      [
        engine({ kind: 'remote', address: '10.0.0.5:2376 (TLS)' }, {}),
        'linux',
        true,
        'the engine is on another computer (10.0.0.5:2376 (TLS))',
      ],
      [
        engine({ kind: 'local', address: '127.0.0.1:2375', tcp: true }, {}),
        'linux',
        true,
        "the engine is reached over TCP, so Sandpit cannot tell that its mounts are this computer's",
      ],
      [
        engine({ kind: 'local', address: '/home/me/.docker/desktop/docker.sock', source: 'Docker Desktop' }, {}),
        'linux',
        false,
        "Docker Desktop sees this computer's folders only through its file sharing, where it cannot mount an overlay",
      ],
      [
        engine(LOCAL, { rootless: true }),
        'linux',
        true,
        'the engine runs rootless: its overlays keep their marks where Sandpit cannot read them, and it maps owners',
      ],
    ];
    for (const [e, platform, asTheyAre, why] of cases) {
      expect(await support(e, platform, asTheyAre).refusal(person, layer)).toBe(why);
      expect(e.runs).toBe(0);
    }
  });

  it('asks the engine once per file system, and says what went wrong when its container could not use the overlay', async () => {
    const { person, layer } = await dirs();
    const failing = engine(LOCAL, {
      run: { exitCode: 1, stdout: '', stderr: 'mkdir: cannot create directory: Permission denied\n', timedOut: false },
    });
    const s = support(failing);
    expect(await s.refusal(person, layer)).toBe(
      'a container could not use an overlay (exit 1: mkdir: cannot create directory: Permission denied)',
    );
    expect(await s.refusal(person, layer)).toBe(
      'a container could not use an overlay (exit 1: mkdir: cannot create directory: Permission denied)',
    );
    expect(failing.runs).toBe(1);
    // the probe's volumes and folders are gone again
    expect(failing.volumes).toEqual([]);
    expect(await readdir(join(root!, 'review-layers'))).toEqual(['rv-test1']);
    const noVolume = engine(LOCAL, { volumeError: 'error while mounting volume: invalid argument' });
    expect(await support(noVolume).refusal(person, layer)).toBe(
      'the engine could not mount an overlay: error while mounting volume: invalid argument',
    );
  });

  it('refuses an engine whose container ran but whose overlay did not keep the writes above the folder', async () => {
    const { person, layer } = await dirs();
    // a stand-in engine that "runs" the probe without mounting anything: nothing lands in the upper folder
    expect(await support(engine(LOCAL, {})).refusal(person, layer)).toBe(
      'a file written through the overlay is not in its upper folder',
    );
  });
});
