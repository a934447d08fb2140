import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { OverlaySupport } from '../folders/review/review-layers';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import { newId } from '../util/ids';
import type { DockerClient } from './docker-client';
import { probeOverlay } from './overlay-probe';

export interface DockerOverlayDeps {
  docker: DockerClient;
  identity: InstanceIdentity;
  /** An executor image for the probe's container. */
  probeImage(): Promise<string>;
  platform?: NodeJS.Platform;
  /** Whether the engine's sandboxes see this computer's folders as they are (not through Docker Desktop's file sharing). */
  foldersAsTheyAre(): boolean;
}

/**
 * Whether a Docker (or Podman) engine can mount an overlay over a folder of this computer, told honestly:
 * never on macOS or Windows (the engine is in a virtual machine), through Docker Desktop's file sharing, over
 * TCP, or for a rootless engine; elsewhere the engine is asked to really do it once per engine and file
 * system (probe-overlay.ts), and what it said is kept.
 */
export function dockerOverlaySupport(deps: DockerOverlayDeps): OverlaySupport {
  const platform = deps.platform ?? process.platform;
  const probes = new Map<string, Promise<string | undefined>>();
  const engines = new Map<string, Promise<{ rootless: boolean }>>();
  const engine = (address: string): Promise<{ rootless: boolean }> => {
    let known = engines.get(address);
    if (!known) {
      known = deps.docker.ping(10_000).then((v) => ({ rootless: v.rootless === true }));
      known.catch(() => engines.delete(address));
      engines.set(address, known);
    }
    return known;
  };
  return {
    async refusal(hostPath: string, layerDir: string): Promise<string | undefined> {
      const endpoint = deps.docker.endpoint;
      if (platform !== 'linux')
        return 'Docker Desktop runs its engine in a virtual machine, which cannot mount an overlay over a folder of this computer';
      if (endpoint.kind !== 'local') return `the engine is on another computer (${endpoint.address})`;
      if (endpoint.tcp === true)
        return "the engine is reached over TCP, so Sandpit cannot tell that its mounts are this computer's";
      if (!deps.foldersAsTheyAre())
        return "Docker Desktop sees this computer's folders only through its file sharing, where it cannot mount an overlay";
      if ((await engine(endpoint.address)).rootless)
        return 'the engine runs rootless: its overlays keep their marks where Sandpit cannot read them, and it maps owners';
      const [folder, data] = await Promise.all([stat(hostPath), stat(layerDir)]);
      const key = `${endpoint.address}\u0000${folder.dev}\u0000${data.dev}`;
      let probe = probes.get(key);
      if (!probe) {
        probe = deps
          .probeImage()
          .then((image) =>
            probeOverlay({
              docker: deps.docker,
              identity: deps.identity,
              image,
              hostPath,
              scratch: join(layerDir, '..', `probe-${newId('p', 6)}`),
            }),
          );
        probes.set(key, probe);
      }
      return probe;
    },
  };
}
