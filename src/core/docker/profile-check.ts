/** A container's protections as the engine reports them (inspect), engine by engine as it says them. */
export interface ContainerProfile {
  privileged: boolean;
  capAdd: string[];
  capDrop: string[];
  securityOpt: string[];
  readonlyRootfs: boolean;
  /** `uid:gid` or a name; '' is the image's user (root here). */
  user: string;
  /** Bytes; 0 is none (the engine enforces none). */
  memory: number;
  /** Billionths of a CPU; 0 is none (Podman also reports the quota and period). */
  nanoCpus: number;
  cpuQuota: number;
  cpuPeriod: number;
  /** 0 or below is none. */
  pidsLimit: number;
}

/** What a sandbox's container may not exceed: its user, and its limits as Sandpit makes them for its session. */
export interface ProfileFloor {
  user: string;
  memory: number;
  nanoCpus: number;
  pidsLimit: number;
}

/**
 * The capabilities an engine gives a container unless told otherwise: dropped one by one, as Podman reports a
 * container made with `CapDrop: ['ALL']`, they are all gone (Docker reports `ALL`).
 */
const DEFAULT_CAPABILITIES = ['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'NET_RAW', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT'];
/** Security options that turn a protection off (either separator, as engines write them). */
const TURNED_OFF = /^(seccomp[=:]unconfined|apparmor[=:]unconfined|label[=:]disable|no-new-privileges[=:]false)$/i;

const capability = (name: string): string => name.trim().toUpperCase().replace(/^CAP_/, '');
const mib = (bytes: number): string => `${Math.round(bytes / (1024 * 1024))} MiB`;
const cpus = (nano: number): string => `${Math.round(nano / 1e7) / 100} CPUs`;

/**
 * How a container is weaker than a sandbox Sandpit makes (container-profile.ts), in plain words; empty when it is
 * not. Read back before a container Sandpit did not just make is used (a kept session's, a warm one an earlier core
 * left): its labels and record say whose it is, this says it still has every protection. A tighter limit is not
 * weaker, a looser one is. No limit at all is what an engine that cannot enforce one reports for every container it
 * makes (rootless without cgroup delegation drops memory and process limits, saying so only when one is made): a
 * sandbox made there now has none either, so none is not held against one made there before.
 */
export function weakerThanSandbox(actual: ContainerProfile, floor: ProfileFloor): string[] {
  const weaker: string[] = [];
  if (actual.privileged) weaker.push('it is privileged');
  const added = actual.capAdd.map(capability).filter((c) => c !== '');
  if (added.length > 0) weaker.push(`it has capabilities added (${added.join(', ')})`);
  const dropped = new Set(actual.capDrop.map(capability));
  const kept = dropped.has('ALL') ? [] : DEFAULT_CAPABILITIES.filter((c) => !dropped.has(c));
  if (kept.length > 0) weaker.push(`it keeps capabilities (${kept.join(', ')})`);
  const options = actual.securityOpt.map((o) => o.trim());
  if (!options.some((o) => /^no-new-privileges([=:]true)?$/i.test(o))) weaker.push('its processes may gain privileges (no-new-privileges is not set)');
  const off = options.filter((o) => TURNED_OFF.test(o));
  if (off.length > 0) weaker.push(`protections are turned off (${off.join(', ')})`);
  if (!actual.readonlyRootfs) weaker.push('its root file system is writable');
  if (actual.user !== floor.user) weaker.push(`it runs as ${actual.user === '' ? 'the image user (root)' : actual.user}, not ${floor.user}`);
  if (actual.memory > floor.memory) weaker.push(`its memory limit is ${mib(actual.memory)}, not ${mib(floor.memory)}`);
  const nano = actual.nanoCpus > 0 ? actual.nanoCpus : actual.cpuQuota > 0 && actual.cpuPeriod > 0 ? Math.round((actual.cpuQuota / actual.cpuPeriod) * 1e9) : 0;
  if (nano > floor.nanoCpus) weaker.push(`its CPU limit is ${cpus(nano)}, not ${cpus(floor.nanoCpus)}`);
  if (actual.pidsLimit > floor.pidsLimit) weaker.push(`its process limit is ${actual.pidsLimit}, not ${floor.pidsLimit}`);
  return weaker;
}
