import { SandpitError } from '../../shared/api/errors';

/** The runtimes a Docker engine registers for gVisor: one with networking, one for sandboxes without. */
export const GVISOR_RUNTIMES = ['runsc', 'runsc-nonet'] as const;

/** How to give an engine gVisor, per system, in plain words (doctor, errors). */
export function gvisorSetupHint(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'linux') {
    return (
      'Install gVisor (Debian/Ubuntu: "sudo apt-get install runsc"; elsewhere see gvisor.dev/docs/user_guide/install) and register it with Docker in /etc/docker/daemon.json: ' +
      '{"runtimes": {"runsc": {"path": "/usr/bin/runsc"}, "runsc-nonet": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}}}, then reload Docker ("sudo systemctl reload docker", or send dockerd SIGHUP).'
    );
  }
  return 'gVisor runs on Linux only: Docker Desktop and other engines in a VM on macOS or Windows do not offer it. Use Standard isolation here, or a Linux engine that has runsc registered.';
}

/**
 * The runtime a strong-isolation sandbox runs under: `runsc-nonet` for one without network (gVisor with its
 * own network stack turned off: works everywhere gVisor does), `runsc` for one with a network.
 */
export function gvisorRuntimeFor(available: readonly string[], networked: boolean): string {
  const wanted = networked ? ['runsc'] : ['runsc-nonet', 'runsc'];
  const found = wanted.find((r) => available.includes(r));
  if (!found) {
    const has = available.length > 0 ? available.join(', ') : 'none';
    throw new SandpitError(
      'INVALID_INPUT',
      `Strong isolation (gVisor) is not set up on this Docker engine (its runtimes: ${has}). ${gvisorSetupHint()} Or choose Standard isolation for this environment.`,
    );
  }
  return found;
}

/**
 * What a session with a network gets under gVisor where this engine's runsc cannot give one: a plain sentence
 * (the engine's own error goes in `details` and the log, not in front of a person).
 */
export function gvisorNetworkRefusal(detail: string): SandpitError {
  return new SandpitError(
    'INVALID_INPUT',
    'This session cannot start: it has network access (“Package downloads only” or “Unrestricted internet”), and Strong isolation (gVisor) cannot give a session network access on this Docker engine. Give its environment Standard isolation (Environments → Edit → Isolation), or “No network”.',
    { engineError: detail },
  );
}
