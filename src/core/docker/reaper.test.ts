import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../log';
import type { ContainerSummary, DockerClient, VolumeSummary } from './docker-client';
import type { NetworkSummary } from '../sandbox/sandbox-networks';
import { currentIdentity, markInstanceAlive, markInstanceDead, processStartTime } from '../sandbox/instance-identity';
import { LABEL, instanceLabels } from './labels';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import { reapDeadInstances } from './reaper';
import type { KeptSessions } from './reaper';
import { KEPT_MARKERS_DIR, isKeptSession } from '../sessions/kept-store';

function keptIn(runRoot: string): KeptSessions {
  return { isKept: (sessionId) => isKeptSession(runRoot, sessionId), markersDir: KEPT_MARKERS_DIR };
}
import { KeptStore } from '../sessions/kept-store';

function exitedPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.status !== 0) throw new Error('could not run a short-lived child process');
  return child.pid;
}

const me: InstanceIdentity = currentIdentity();
const dead: InstanceIdentity = { instanceId: 'inst-dead', host: me.host, pid: exitedPid(), processStart: '12345' };
const live: InstanceIdentity = {
  instanceId: 'inst-live',
  host: me.host,
  pid: process.ppid,
  processStart: processStartTime(process.ppid),
};
const remote: InstanceIdentity = {
  instanceId: 'inst-remote',
  host: `${me.host}-elsewhere`,
  pid: dead.pid,
  processStart: '1',
};
/** Another core in this same process, disposed without cleaning up. */
const disposedHere: InstanceIdentity = { ...me, instanceId: 'inst-disposed-here' };

function matches(labels: Record<string, string>, filter: Record<string, string | true>): boolean {
  return Object.entries(filter).every(([key, value]) => (value === true ? key in labels : labels[key] === value));
}

/** Only what the reaper calls; list calls filter by label as the engine does. */
function fakeDocker(
  containers: ContainerSummary[],
  volumes: VolumeSummary[],
  networks: NetworkSummary[] = [],
): { docker: DockerClient; removedContainers: string[]; removedVolumes: string[]; removedNetworks: string[] } {
  const removedContainers: string[] = [];
  const removedVolumes: string[] = [];
  const removedNetworks: string[] = [];
  const docker = {
    endpoint: { kind: 'local', address: '/var/run/docker.sock' },
    listContainers: (labels: Record<string, string | true>) =>
      Promise.resolve(containers.filter((c) => matches(c.labels, labels))),
    removeContainer: (id: string) => {
      removedContainers.push(id);
      return Promise.resolve();
    },
    listVolumes: (labels: Record<string, string | true>) =>
      Promise.resolve(volumes.filter((v) => matches(v.labels, labels))),
    removeVolume: (name: string) => {
      removedVolumes.push(name);
      return Promise.resolve();
    },
    listNetworks: (labels: Record<string, string | true>) =>
      Promise.resolve(networks.filter((n) => matches(n.labels, labels))),
    removeNetwork: (id: string) => {
      if (id === 'n-busy') return Promise.reject(new Error('network has active endpoints'));
      removedNetworks.push(id);
      return Promise.resolve();
    },
  } as Partial<DockerClient> as DockerClient;
  return { docker, removedContainers, removedVolumes, removedNetworks };
}

function container(id: string, labels: Record<string, string>): ContainerSummary {
  return { id, names: [`/${id}`], state: 'running', labels };
}

function unmanaged(identity: InstanceIdentity): Record<string, string> {
  const labels = instanceLabels(identity);
  delete labels[LABEL.managed];
  return labels;
}

let runRoot: string;

beforeEach(async () => {
  runRoot = await mkdtemp(join(tmpdir(), 'sandpit-reaper-'));
});

afterEach(async () => {
  await rm(runRoot, { recursive: true, force: true });
});

async function agentDir(name: string, owner?: InstanceIdentity): Promise<string> {
  const dir = join(runRoot, name);
  await mkdir(join(dir, 'ses-1'), { recursive: true });
  if (owner) await writeFile(join(dir, 'owner.json'), JSON.stringify(owner));
  return dir;
}

describe('reapDeadInstances', () => {
  it('removes the containers and volumes of dead owners and nothing else', async () => {
    const { docker, removedContainers, removedVolumes } = fakeDocker(
      [
        container('c-dead', { ...instanceLabels(dead), [LABEL.session]: 'ses-1' }),
        container('c-disposed-here', instanceLabels(disposedHere)),
        container('c-live', instanceLabels(live)),
        container('c-remote', instanceLabels(remote)),
        container('c-mine', instanceLabels(me)),
        container('c-unmanaged', unmanaged(dead)),
        container('c-not-true', { ...instanceLabels(dead), [LABEL.managed]: 'false' }),
        container('c-foreign', { 'com.example.app': 'x' }),
      ],
      [
        { name: 'v-dead', labels: instanceLabels(dead) },
        { name: 'v-live', labels: instanceLabels(live) },
        { name: 'v-remote', labels: instanceLabels(remote) },
        { name: 'v-mine', labels: instanceLabels(me) },
        { name: 'v-unmanaged', labels: unmanaged(dead) },
      ],
    );
    markInstanceAlive(me.instanceId);
    try {
      const report = await reapDeadInstances(docker, me, runRoot, keptIn(runRoot), silentLogger);
      expect(removedContainers.sort()).toEqual(['c-dead', 'c-disposed-here']);
      expect(removedVolumes).toEqual(['v-dead']);
      expect(report.containers.sort()).toEqual(['c-dead', 'c-disposed-here']);
      expect(report.volumes).toEqual(['v-dead']);
    } finally {
      markInstanceDead(me.instanceId);
    }
  });

  it('removes the networks of dead owners, skips one it cannot remove, and leaves the rest', async () => {
    const network = (id: string, labels: Record<string, string>): NetworkSummary => ({ id, name: `name-${id}`, labels });
    const { docker, removedNetworks } = fakeDocker([], [], [
      network('n-dead', { ...instanceLabels(dead), [LABEL.role]: 'egress' }),
      network('n-busy', instanceLabels(dead)),
      network('n-live', instanceLabels(live)),
      network('n-remote', instanceLabels(remote)),
      network('n-mine', instanceLabels(me)),
      network('n-unmanaged', unmanaged(dead)),
    ]);
    const report = await reapDeadInstances(docker, me, runRoot, keptIn(runRoot), silentLogger);
    expect(removedNetworks).toEqual(['n-dead']);
    expect(report.networks).toEqual(['name-n-dead']);
  });

  it("never removes its own instance's resources, even after the instance was marked dead (on quit)", async () => {
    const { docker, removedContainers, removedVolumes } = fakeDocker(
      [container('c-mine', instanceLabels(me))],
      [{ name: 'v-mine', labels: instanceLabels(me) }],
    );
    markInstanceDead(me.instanceId);
    const report = await reapDeadInstances(docker, me, runRoot, keptIn(runRoot), silentLogger);
    expect(removedContainers).toEqual([]);
    expect(removedVolumes).toEqual([]);
    expect(report).toEqual({ containers: [], volumes: [], networks: [], dirs: [] });
  });

  it('removes the agent dirs of dead owners and keeps live, remote and its own', async () => {
    const { docker } = fakeDocker([], []);
    const deadDir = await agentDir(dead.instanceId, dead);
    const halfMade = await agentDir('inst-half-made');
    const longAgo = new Date(Date.now() - 5 * 60_000);
    await utimes(halfMade, longAgo, longAgo);
    // A dir without owner.json that is brand new may be an instance starting right now: kept.
    const starting = await agentDir('inst-starting');
    const liveDir = await agentDir(live.instanceId, live);
    const remoteDir = await agentDir(remote.instanceId, remote);
    const mine = await agentDir(me.instanceId);
    const report = await reapDeadInstances(docker, me, runRoot, keptIn(runRoot), silentLogger);
    expect(report.dirs.sort()).toEqual([deadDir, halfMade].sort());
    expect((await readdir(runRoot)).sort()).toEqual([live.instanceId, remote.instanceId, me.instanceId, 'inst-starting'].sort());
    expect(await readdir(starting)).toEqual(['ses-1']);
    expect((await readdir(liveDir)).sort()).toEqual(['owner.json', 'ses-1']);
    expect((await readdir(remoteDir)).sort()).toEqual(['owner.json', 'ses-1']);
    expect(await readdir(mine)).toEqual(['ses-1']);
  });

  it('copes with a run root that does not exist yet', async () => {
    const { docker } = fakeDocker([], []);
    const report = await reapDeadInstances(docker, me, join(runRoot, 'missing'), keptIn(join(runRoot, 'missing')), silentLogger);
    expect(report).toEqual({ containers: [], volumes: [], networks: [], dirs: [] });
  });
});

describe('reapDeadInstances and kept sessions', () => {
  it("leaves a kept session's container, volumes and agent folder, removes its installer and everything else of the dead owner", async () => {
    const home = await mkdtemp(join(tmpdir(), 'sandpit-reaper-home-'));
    try {
      const store = new KeptStore(home, runRoot, silentLogger);
      await mkdir(join(home, 'kept-sessions'), { recursive: true });
      await mkdir(join(runRoot, 'kept'), { recursive: true });
      await writeFile(join(home, 'kept-sessions', 'ses-kept.json'), '{}');
      await writeFile(join(runRoot, 'kept', 'ses-kept.json'), JSON.stringify({ home }));
      // A marker whose data folder no longer holds the record keeps nothing.
      await writeFile(join(runRoot, 'kept', 'ses-orphan.json'), JSON.stringify({ home }));
      expect(await store.isKept('ses-kept')).toBe(true);
      expect(await store.isKept('ses-orphan')).toBe(false);
      expect(await store.isKept('../ses-kept')).toBe(false);
      const session = (id: string): Record<string, string> => ({ ...instanceLabels(dead), [LABEL.session]: id });
      const { docker, removedContainers, removedVolumes } = fakeDocker(
        [
          container('c-kept', session('ses-kept')),
          container('c-kept-installer', { ...session('ses-kept'), [LABEL.role]: 'installer' }),
          container('c-orphan', session('ses-orphan')),
          container('c-plain', session('ses-plain')),
        ],
        [
          { name: 'sandpit-ws-ses-kept', labels: session('ses-kept') },
          { name: 'sandpit-pkg-ses-kept', labels: session('ses-kept') },
          { name: 'sandpit-ws-ses-plain', labels: session('ses-plain') },
        ],
      );
      const dir = join(runRoot, dead.instanceId);
      await mkdir(join(dir, 'ses-kept'), { recursive: true });
      await mkdir(join(dir, 'ses-plain'), { recursive: true });
      await writeFile(join(dir, 'owner.json'), JSON.stringify(dead));
      const report = await reapDeadInstances(docker, me, runRoot, keptIn(runRoot), silentLogger);
      expect(removedContainers.sort()).toEqual(['c-kept-installer', 'c-orphan', 'c-plain']);
      expect(removedVolumes).toEqual(['sandpit-ws-ses-plain']);
      expect((await readdir(dir)).sort()).toEqual(['owner.json', 'ses-kept']);
      expect(report.dirs).toEqual([join(dir, 'ses-plain')]);
      // The markers' folder is not an instance's folder: it stays.
      expect((await readdir(runRoot)).sort()).toEqual([dead.instanceId, 'kept'].sort());
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
