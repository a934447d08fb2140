import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { backendConformance } from '../../test-support/backend-conformance';
import type { BackendUnderTest } from '../../test-support/backend-conformance';
import { testDocker } from '../../test-support/docker';
import { onEngine, testEngines } from '../../test-support/engines';
import type { TestEngineName } from '../../test-support/engines';
import { silentLogger } from '../log';
import { currentIdentity, markInstanceAlive, markInstanceDead } from '../sandbox/instance-identity';
import { ensurePrivateDir } from '../util/private-dir';
import { DaemonEvents } from './daemon-events';
import { DockerBackend } from './docker-backend';
import { DockerodeClient } from './dockerode-client';
import { LABEL } from './labels';
import { plainWorkspaces } from './workspace-storage';

/** The Docker implementation of the port, on Docker and on Podman, as the composition root builds it. */
async function dockerBackendOn(engine: TestEngineName): Promise<BackendUnderTest> {
  const config = onEngine(engine);
  const docker = engine === 'docker' ? testDocker() : new DockerodeClient({ host: config.dockerHost, logger: silentLogger });
  const image = engine === 'docker' ? inject('images').python : config.images?.python;
  if (!image) throw new Error(`The python executor image is not on ${engine}.`);
  const identity = currentIdentity();
  markInstanceAlive(identity.instanceId);
  const runRoot = await mkdtemp(join(tmpdir(), 'sandpit-conformance-'));
  const instanceDir = join(runRoot, identity.instanceId);
  await ensurePrivateDir(runRoot);
  await mkdir(instanceDir, { mode: 0o711 });
  const events = new DaemonEvents(docker, identity.instanceId, silentLogger);
  await events.start();
  const backend = new DockerBackend({ docker, events, identity, instanceDir, channel: 'auto', workspaces: plainWorkspaces, log: silentLogger });
  // The engine answers before the suite asks anything with the backend's own short timeouts, as the core's engine
  // monitor makes sure at start (Podman's /version alone took 2.4 s here at load 15).
  await backend.ping(60_000);
  return {
    backend,
    image,
    instanceId: identity.instanceId,
    helperNetwork: 'bridge',
    memoryHog: async (sandbox) => {
      const r = await sandbox.exec(['python3', '-c', 'b = bytearray(1024 ** 3)'], { timeoutMs: 60_000 });
      if (r.exitCode !== 137) throw new Error(`the memory hog ended with ${r.exitCode}, not 137: ${r.stderr}`);
    },
    leftovers: async (sessionId) => {
      const containers = await docker.listContainers({ [LABEL.session]: sessionId });
      const volumes = await docker.listVolumes({ [LABEL.session]: sessionId });
      return [
        ...containers.map((c) => ({ what: `container ${c.id}`, owner: c.labels[LABEL.instance] })),
        ...volumes.map((v) => ({ what: `volume ${v.name}`, owner: v.labels[LABEL.instance] })),
      ];
    },
    cleanup: async () => {
      events.close();
      markInstanceDead(identity.instanceId);
      await rm(runRoot, { recursive: true, force: true });
    },
  };
}

for (const { engine, label, skip } of testEngines()) backendConformance(label, () => dockerBackendOn(engine), { skip, runsPrograms: true });
