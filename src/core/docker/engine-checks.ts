import { toErrorBody } from '../../shared/api/errors';
import type { CheckResult } from '../check-result';
import type { DockerClient, EngineVersion } from './docker-client';
import { dockerFixHint } from './docker-errors';
import { GVISOR_RUNTIMES, gvisorSetupHint } from './gvisor';
import { PODMAN_DIFFERENCES, PODMAN_NOT_OFFERED } from './podman';
import { resolveExecutorImages } from './resolve-images';

/** The engine, where it was found (`source`: "DOCKER_HOST", "docker context \"colima\"" …) and, when it answers, its version. */
export async function checkDocker(docker: DockerClient, source?: string): Promise<CheckResult & { version?: EngineVersion }> {
  const from = source ? ` (found through ${source})` : '';
  try {
    const version = await docker.ping(5_000);
    if (version.product === 'podman') {
      const differs = PODMAN_DIFFERENCES.join('; ');
      return { name: 'Docker engine', ok: true, detail: `Podman ${version.version} through its Docker-compatible API (${version.apiVersion}) at ${docker.endpoint.address}${from}. Works as on Docker except Strong isolation (not offered) and: ${differs}`, version };
    }
    return { name: 'Docker engine', ok: true, detail: `${version.version} (API ${version.apiVersion}) at ${docker.endpoint.address}${from}`, version };
  } catch (error) {
    return { name: 'Docker engine', ok: false, detail: `${docker.endpoint.address}${from}: ${toErrorBody(error).message}`, fix: dockerFixHint(docker.endpoint) };
  }
}

/**
 * Strong isolation: whether the engine has gVisor's runtimes registered. Optional — a problem only when the
 * Settings default asks for Strong isolation (`required`).
 */
export function checkGvisor(version: EngineVersion, required: boolean, platform: NodeJS.Platform = process.platform): CheckResult {
  if (version.product === 'podman') {
    const detail = `not offered on Podman: ${PODMAN_NOT_OFFERED.join('; ')}`;
    if (!required) return { name: 'Strong isolation (gVisor)', ok: true, detail: `${detail}. Sessions use Standard isolation here.` };
    return { name: 'Strong isolation (gVisor)', ok: false, detail: `${detail}, but Settings make Strong isolation the default`, fix: 'Set the default isolation to Standard in Settings, or point Sandpit at a Docker engine with gVisor set up.' };
  }
  const found = GVISOR_RUNTIMES.filter((runtime) => version.runtimes.includes(runtime));
  if (found.length === GVISOR_RUNTIMES.length) return { name: 'Strong isolation (gVisor)', ok: true, detail: `runtimes ${found.join(' and ')} registered. gVisor serves sandboxes without network; a session with network access may not run under it on this engine (it is refused in plain words when it starts): give such environments Standard isolation` };
  const missing = GVISOR_RUNTIMES.filter((runtime) => !found.includes(runtime)).join(' and ');
  const detail = `not set up: ${missing} not registered with this engine (its runtimes: ${version.runtimes.join(', ') || 'none'})`;
  if (!required) return { name: 'Strong isolation (gVisor)', ok: true, detail: `${detail}. Only needed for Strong isolation: ${gvisorSetupHint(platform)}` };
  return { name: 'Strong isolation (gVisor)', ok: false, detail: `${detail}, but Settings make Strong isolation the default`, fix: gvisorSetupHint(platform) };
}

export async function checkImages(docker: DockerClient): Promise<CheckResult> {
  try {
    const { images, missing } = await resolveExecutorImages(docker);
    if (missing.length > 0) return { name: 'Sandbox images', ok: false, detail: missing.join(' '), fix: 'Run "npm run build:images" (about a minute the first time).' };
    return { name: 'Sandbox images', ok: true, detail: Object.entries(images).map(([l, t]) => `${l}: ${t}`).join(', ') };
  } catch (error) {
    return { name: 'Sandbox images', ok: false, detail: toErrorBody(error).message, fix: 'Start Docker first, then run "npm run build:images".' };
  }
}
