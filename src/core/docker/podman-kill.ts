import type Docker from 'dockerode';

/**
 * SIGKILL on Podman. Not its Docker-compatible kill: after a SIGKILL that one waits (polling every 250 ms) for
 * the container to be seen exited, and when Sandpit has restarted it by then (a session recovering), the call
 * hangs for about 20 s. Podman's own endpoint only signals. A container that is not running answers like
 * Docker's 409 (the goal, a container that does not run, is met).
 */
export async function podmanKill(docker: Docker, id: string, signal: string): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      docker.modem.dial(
        {
          path: `/v4.0.0/libpod/containers/${encodeURIComponent(id)}/kill?`,
          method: 'POST',
          statusCodes: { 204: true, 404: 'no such container', 409: 'container not running', 500: 'server error' },
          options: { signal },
        },
        (error: unknown) => (error ? reject(error instanceof Error ? error : new Error(JSON.stringify(error))) : resolve()),
      );
    });
  } catch (error) {
    const e = error as { statusCode?: number; message?: string };
    // Podman says 500 "container state improper" where Docker says 409 "is not running".
    if (e.statusCode === 500 && /container state improper/.test(e.message ?? '')) throw Object.assign(new Error(e.message), { statusCode: 409 });
    throw error;
  }
}
