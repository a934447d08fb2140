import { isSandpitError } from '../../shared/api/errors';
import type { Sandbox, SandboxBackend } from '../sandbox/sandbox-backend';

/** How long a container stopped by SIGTERM waits to see whether the whole engine is shutting down. */
const ENGINE_SHUTDOWN_WINDOW_MS = 5_000;

/** Why a sandbox's channel ended: `engine` (Docker gone), `oom`, or `exit` (killed or crashed). */
export type DeathCause = 'engine' | 'oom' | 'exit';

/** What diagnoseDeath found: the cause, and the exit code it last saw (absent when it could read no state). */
export interface DeathDiagnosis {
  cause: DeathCause;
  exitCode?: number;
}

/** Why did the channel end? `engine` (Docker gone), `oom`, or `exit` (killed or crashed). */
export async function diagnoseDeath(
  sandbox: Sandbox,
  backend: Pick<SandboxBackend, 'ping'>,
  oomSince: number,
): Promise<DeathDiagnosis> {
  const deadline = Date.now() + 3_000;
  let seen: { exitCode: number } | undefined;
  for (;;) {
    try {
      const state = await sandbox.state();
      seen = { exitCode: state.exitCode };
      if (!state.running || Date.now() > deadline) {
        if (state.oomKilled) return { cause: 'oom', ...seen };
        if (state.exitCode === 137 && (await sandbox.waitForOom(oomSince, 500))) return { cause: 'oom', ...seen };
        // SIGTERM (143) is what a stopping engine sends its containers (Sandpit itself only ever uses SIGKILL):
        // if the engine goes away right after, the run failed with it, not with the sandbox.
        if (state.exitCode === 143 && (await engineGoesAway(backend, ENGINE_SHUTDOWN_WINDOW_MS))) {
          return { cause: 'engine', ...seen };
        }
        return { cause: 'exit', ...seen };
      }
    } catch (error) {
      if (isSandpitError(error, 'DOCKER_UNAVAILABLE')) return { cause: 'engine', ...seen };
      return { cause: 'exit', ...seen };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Whether the engine stops answering within `windowMs` (polled). */
export async function engineGoesAway(backend: Pick<SandboxBackend, 'ping'>, windowMs: number): Promise<boolean> {
  const deadline = Date.now() + windowMs;
  while (Date.now() < deadline) {
    if (!(await engineAnswers(backend))) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

/** Whether the engine answers a ping within two seconds. */
export async function engineAnswers(backend: Pick<SandboxBackend, 'ping'>): Promise<boolean> {
  try {
    await backend.ping(2_000);
    return true;
  } catch {
    return false;
  }
}
