import { describe, expect, it } from 'vitest';
import { weakerThanSandbox } from './profile-check';
import type { ContainerProfile } from './profile-check';

const FLOOR = { user: '10001:10001', memory: 512 * 1024 * 1024, nanoCpus: 1.5e9, pidsLimit: 128 };
// As Docker reports a container made by hardenedContainerSpec (measured on Docker 28 with these limits).
const DOCKER: ContainerProfile = { privileged: false, capAdd: [], capDrop: ['ALL'], securityOpt: ['no-new-privileges'], readonlyRootfs: true, user: '10001:10001', memory: 512 * 1024 * 1024, nanoCpus: 1.5e9, cpuQuota: 0, cpuPeriod: 0, pidsLimit: 128 };
// As Podman 5 reports the same container: every default capability dropped by name, the CPU limit also as a quota.
const PODMAN: ContainerProfile = {
  ...DOCKER,
  capDrop: ['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'NET_RAW', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT'],
  cpuQuota: 150_000,
  cpuPeriod: 100_000,
};

describe('weakerThanSandbox', () => {
  it('finds nothing weaker in a sandbox as Docker and as Podman report it, nor in tighter limits', () => {
    expect(weakerThanSandbox(DOCKER, FLOOR)).toEqual([]);
    expect(weakerThanSandbox(PODMAN, FLOOR)).toEqual([]);
    expect(weakerThanSandbox({ ...DOCKER, memory: 256 * 1024 * 1024, nanoCpus: 0.5e9, pidsLimit: 64, capDrop: ['cap_all'] }, FLOOR)).toEqual([]);
  });

  it('names each protection a container made by hand lacks', () => {
    const weak: ContainerProfile = { privileged: true, capAdd: ['SYS_ADMIN'], capDrop: [], securityOpt: ['seccomp=unconfined'], readonlyRootfs: false, user: '', memory: 0, nanoCpus: 0, cpuQuota: 0, cpuPeriod: 0, pidsLimit: 0 };
    expect(weakerThanSandbox(weak, FLOOR)).toEqual([
      'it is privileged',
      'it has capabilities added (SYS_ADMIN)',
      'it keeps capabilities (AUDIT_WRITE, CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, MKNOD, NET_BIND_SERVICE, NET_RAW, SETFCAP, SETGID, SETPCAP, SETUID, SYS_CHROOT)',
      'its processes may gain privileges (no-new-privileges is not set)',
      'protections are turned off (seccomp=unconfined)',
      'its root file system is writable',
      'it runs as the image user (root), not 10001:10001',
    ]);
  });

  it('takes no limit at all as an engine that enforces none (it reports none for a sandbox made now too), and a looser one as weaker', () => {
    expect(weakerThanSandbox({ ...DOCKER, memory: 0, nanoCpus: 0, pidsLimit: 0 }, FLOOR)).toEqual([]);
    expect(weakerThanSandbox({ ...DOCKER, memory: 1024 * 1024 * 1024, nanoCpus: 2e9, pidsLimit: 129 }, FLOOR)).toEqual([
      'its memory limit is 1024 MiB, not 512 MiB',
      'its CPU limit is 2 CPUs, not 1.5 CPUs',
      'its process limit is 129, not 128',
    ]);
  });

  it('refuses looser limits, one capability kept, and a protection turned off beside no-new-privileges', () => {
    expect(weakerThanSandbox({ ...DOCKER, memory: 8 * 1024 * 1024 * 1024 }, FLOOR)).toEqual(['its memory limit is 8192 MiB, not 512 MiB']);
    expect(weakerThanSandbox({ ...PODMAN, nanoCpus: 0, cpuQuota: 400_000 }, FLOOR)).toEqual(['its CPU limit is 4 CPUs, not 1.5 CPUs']);
    expect(weakerThanSandbox({ ...PODMAN, capDrop: PODMAN.capDrop.filter((c) => c !== 'NET_RAW') }, FLOOR)).toEqual(['it keeps capabilities (NET_RAW)']);
    expect(weakerThanSandbox({ ...DOCKER, securityOpt: ['no-new-privileges', 'apparmor:unconfined'] }, FLOOR)).toEqual(['protections are turned off (apparmor:unconfined)']);
    expect(weakerThanSandbox({ ...DOCKER, securityOpt: ['no-new-privileges:false'] }, FLOOR)).toEqual([
      'its processes may gain privileges (no-new-privileges is not set)',
      'protections are turned off (no-new-privileges:false)',
    ]);
    expect(weakerThanSandbox({ ...DOCKER, user: '0:0', pidsLimit: 10_000 }, FLOOR)).toEqual(['it runs as 0:0, not 10001:10001', 'its process limit is 10000, not 128']);
  });
});
