import { SandpitError } from '../../shared/api/errors';

/**
 * Podman through its Docker-compatible API (`podman system service`): sessions, both agent channels, files,
 * installs, limits and the reaper work as on Docker. What does not, said plainly wherever it is asked for.
 */
export const PODMAN_NOT_OFFERED = [
  'Strong isolation (gVisor): Sandpit runs gVisor through the runtimes Docker registers (runsc, runsc-nonet); Podman has no such registered no-network variant, so Strong isolation is refused there',
] as const;

/** What works on Podman but is told differently (doctor lists these with the engine). */
export const PODMAN_DIFFERENCES = [
  'a run that exhausts memory in the sandbox\'s main process is reported as "the sandbox stopped … may have been the memory limit", not as out of memory: Podman reports neither OOMKilled nor an oom event (a child process killed for memory is still reported as out of memory)',
] as const;

/** What a Strong-isolation session gets on Podman: a refusal naming Podman, never a runc sandbox instead. */
export function podmanGvisorRefusal(version: string): SandpitError {
  return new SandpitError(
    'INVALID_INPUT',
    `Strong isolation (gVisor) is not offered on Podman (this engine is Podman ${version}): Sandpit runs gVisor through the runtimes Docker registers (runsc and runsc-nonet in /etc/docker/daemon.json). Choose Standard isolation for this environment, or point Sandpit at a Docker engine with gVisor set up.`,
  );
}
