import { describe, expect, it } from 'vitest';
import type { Limits } from '../../shared/domain/limits';
import { AGENT_DIR, WORKSPACE_DIR } from '../sandbox/sandbox-paths';
import { AGENT_SOCKET, SANDBOX_NPROC, SANDBOX_USER, gvisorHostPids, hardenedContainerSpec } from './container-profile';
import type { ProfileInput } from './container-profile';
import type { ContainerSpec } from './docker-client';

const LIMITS: Limits = {
  memoryMb: 256,
  cpus: 1.5,
  pids: 128,
  workspaceMb: 100,
  tmpMb: 32,
  outputBytes: 4096,
  timeoutMs: 10_000,
};

function spec(overrides: Partial<ProfileInput> = {}): ContainerSpec {
  return hardenedContainerSpec({
    name: 'sandpit-ses-1',
    image: 'sandpit-python:abc',
    limits: LIMITS,
    labels: { 'dev.sandpit.managed': 'true', 'dev.sandpit.session': 'ses-1' },
    workspaceVolume: 'sandpit-ws-1',
    ...overrides,
  });
}

interface Mount {
  Type: string;
  Source: string;
  Target: string;
  ReadOnly?: boolean;
}

function mountsOf(s: ContainerSpec): Mount[] {
  return s.hostConfig.Mounts as Mount[];
}

const socketSpec = spec({ agentHostDir: '/tmp/sandpit-run/inst/ses-1' });
const attachSpec = spec();

describe.each([
  ['socket channel', socketSpec],
  ['attach channel', attachSpec],
])('hardenedContainerSpec (%s)', (_name, s) => {
  const hc = s.hostConfig;

  it('drops every capability and forbids gaining privileges', () => {
    expect(hc.CapDrop).toEqual(['ALL']);
    expect(hc.CapAdd).toBeUndefined();
    expect(hc.SecurityOpt).toContain('no-new-privileges');
    expect(hc.Privileged).toBe(false);
  });

  it('keeps the default seccomp profile', () => {
    expect((hc.SecurityOpt as string[]).some((o) => o.startsWith('seccomp'))).toBe(false);
  });

  it('runs as the unprivileged sandbox user in /workspace', () => {
    expect(s.user).toBe('10001:10001');
    expect(SANDBOX_USER).toBe('10001:10001');
    expect(s.workingDir).toBe('/workspace');
  });

  it('has a read-only root fs and an init process', () => {
    expect(hc.ReadonlyRootfs).toBe(true);
    expect(hc.Init).toBe(true);
  });

  it('limits memory without extra swap, CPUs and processes', () => {
    expect(hc.Memory).toBe(256 * 1024 * 1024);
    expect(hc.MemorySwap).toBe(hc.Memory);
    expect(hc.NanoCpus).toBe(1_500_000_000);
    expect(hc.PidsLimit).toBe(128);
  });

  it('sets ulimits on open files, file size and core dumps', () => {
    const ulimits = hc.Ulimits as Array<{ Name: string; Soft: number; Hard: number }>;
    const byName = Object.fromEntries(ulimits.map((u) => [u.Name, u]));
    expect(byName.nofile?.Soft).toBeGreaterThan(0);
    expect(byName.nofile?.Hard).toBe(byName.nofile?.Soft);
    expect(byName.fsize).toEqual({ Name: 'fsize', Soft: 100 * 1024 * 1024, Hard: 100 * 1024 * 1024 });
    expect(byName.core).toEqual({ Name: 'core', Soft: 0, Hard: 0 });
    // Always explicit (Podman's default exceeds common hard limits); under runc it counts uid 10001 machine-wide.
    expect(byName.nproc).toEqual({ Name: 'nproc', Soft: SANDBOX_NPROC, Hard: SANDBOX_NPROC });
  });

  it('mounts /tmp as a tmpfs with a size', () => {
    const tmpfs = hc.Tmpfs as Record<string, string>;
    expect(Object.keys(tmpfs)).toEqual(['/tmp']);
    expect(tmpfs['/tmp']?.split(',')).toContain('size=32m');
    expect(tmpfs['/tmp']?.split(',')).toEqual(expect.arrayContaining(['nosuid', 'nodev']));
  });

  it('has no network by default', () => {
    expect(hc.NetworkMode).toBe('none');
  });

  it('caps the json-file log', () => {
    const log = hc.LogConfig as { Type: string; Config: Record<string, string> };
    expect(log.Type).toBe('json-file');
    expect(log.Config['max-size']).toBe('1m');
    expect(log.Config['max-file']).toBe('1');
  });

  it('shares no host namespace', () => {
    for (const key of ['NetworkMode', 'PidMode', 'IpcMode', 'UTSMode', 'UsernsMode', 'CgroupnsMode']) {
      expect(hc[key], key).not.toBe('host');
    }
    expect(hc.IpcMode).toBe('private');
  });

  it('never mounts the Docker socket or any host path through Binds, Devices or VolumesFrom', () => {
    expect(hc.Binds).toBeUndefined();
    expect(hc.Devices).toBeUndefined();
    expect(hc.VolumesFrom).toBeUndefined();
    expect(JSON.stringify(s)).not.toMatch(/docker\.sock/);
  });

  it('mounts the workspace volume at /workspace', () => {
    expect(mountsOf(s)).toContainEqual({
      Type: 'volume',
      Source: 'sandpit-ws-1',
      Target: WORKSPACE_DIR,
      ReadOnly: false,
    });
  });

  it('is never restarted or removed behind our back', () => {
    expect(hc.RestartPolicy).toEqual({ Name: 'no' });
    expect(hc.AutoRemove).toBe(false);
  });

  it('carries the labels it was given', () => {
    expect(s.labels).toEqual({ 'dev.sandpit.managed': 'true', 'dev.sandpit.session': 'ses-1' });
    expect(s.name).toBe('sandpit-ses-1');
    expect(s.image).toBe('sandpit-python:abc');
  });
});

describe('hardenedContainerSpec channels', () => {
  it('binds only the agent dir, at /run/sandpit, for the socket channel', () => {
    const binds = mountsOf(socketSpec).filter((m) => m.Type !== 'volume');
    expect(binds).toEqual([
      { Type: 'bind', Source: '/tmp/sandpit-run/inst/ses-1', Target: AGENT_DIR, ReadOnly: false },
    ]);
    expect(socketSpec.env.SANDPIT_CHANNEL).toBe(`socket:${AGENT_SOCKET}`);
    expect(AGENT_SOCKET).toBe('/run/sandpit/agent.sock');
    expect(socketSpec.openStdin).toBe(false);
  });

  it('has no host mount at all and speaks over stdio for the attach channel', () => {
    expect(mountsOf(attachSpec).filter((m) => m.Type !== 'volume')).toEqual([]);
    expect(attachSpec.env.SANDPIT_CHANNEL).toBe('stdio');
    expect(attachSpec.openStdin).toBe(true);
  });

  it('tells the agent where the workspace is', () => {
    expect(socketSpec.env.SANDPIT_WORKSPACE).toBe('/workspace');
    expect(attachSpec.env.SANDPIT_WORKSPACE).toBe('/workspace');
  });
});

describe('hardenedContainerSpec options', () => {
  it('joins the given network instead of none', () => {
    expect(spec({ network: 'sandpit-egress' }).hostConfig.NetworkMode).toBe('sandpit-egress');
  });

  it('uses the given runtime (gVisor) only when asked', () => {
    expect(spec({ runtime: 'runsc' }).hostConfig.Runtime).toBe('runsc');
    expect('Runtime' in spec().hostConfig).toBe(false);
  });

  it("caps processes inside a gVisor sandbox with RLIMIT_NPROC, leaving the host cgroup room for gVisor's own", () => {
    const hc = spec({ runtime: 'runsc-nonet' }).hostConfig;
    const ulimits = Object.fromEntries((hc.Ulimits as Array<{ Name: string; Soft: number; Hard: number }>).map((u) => [u.Name, u]));
    expect(ulimits.nproc).toEqual({ Name: 'nproc', Soft: 128, Hard: 128 });
    expect(hc.PidsLimit).toBe(gvisorHostPids(128));
    expect(gvisorHostPids(128)).toBe(128 * 32 + 256);
  });

  it('adds extra named volumes as volumes, never as binds', () => {
    const s = spec({ volumes: { 'sandpit-pkgs-1': '/opt/packages' } });
    expect(mountsOf(s)).toContainEqual({
      Type: 'volume',
      Source: 'sandpit-pkgs-1',
      Target: '/opt/packages',
      ReadOnly: false,
    });
    expect(mountsOf(s).filter((m) => m.Type === 'bind')).toEqual([]);
  });

  it('passes extra env and the command through', () => {
    const s = spec({ env: { PYTHONHASHSEED: '0' }, cmd: ['python3', '-m', 'agent'] });
    expect(s.env.PYTHONHASHSEED).toBe('0');
    expect(s.env.SANDPIT_CHANNEL).toBe('stdio');
    expect(s.cmd).toEqual(['python3', '-m', 'agent']);
  });
});

describe('shared folders in the hardened profile', () => {
  it('binds each folder alone, read-only unless chosen, joins only the groups given, and keeps every other hardening', () => {
    const s = spec({
      sharedFolders: [
        { hostPath: '/home/me/data', mountPath: '/workspace/shared/data', readOnly: true },
        { hostPath: '/home/me/out', mountPath: '/workspace/out', readOnly: false },
      ],
      groupAdd: [4242],
    });
    const mounts = s.hostConfig.Mounts as Array<Record<string, unknown>>;
    expect(mounts.filter((m) => m.Type === 'bind')).toEqual([
      { Type: 'bind', Source: '/home/me/data', Target: '/workspace/shared/data', ReadOnly: true, BindOptions: { Propagation: 'rprivate', NonRecursive: true } },
      { Type: 'bind', Source: '/home/me/out', Target: '/workspace/out', ReadOnly: false, BindOptions: { Propagation: 'rprivate', NonRecursive: true } },
    ]);
    expect(s.hostConfig.GroupAdd).toEqual(['4242']);
    expect(s.user).toBe(SANDBOX_USER);
    expect(s.hostConfig).toMatchObject({ CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'], ReadonlyRootfs: true, Privileged: false, NetworkMode: 'none' });
  });

  it('joins no group without shared folders', () => {
    expect(spec().hostConfig.GroupAdd).toBeUndefined();
  });
});
