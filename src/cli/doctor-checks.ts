import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { toErrorBody } from '../shared/api/errors';
import type { DockerClient } from '../core/docker/docker-client';
import { dockerFixHint } from '../core/docker/docker-errors';
import { resolveExecutorImages } from '../core/docker/resolve-images';

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
  /** How to fix it, in plain words (only when not ok). */
  fix?: string;
}

export function checkNode(version: string = process.versions.node): CheckResult {
  const major = Number(version.split('.')[0]);
  return major >= 24
    ? { name: 'Node.js', ok: true, detail: `v${version}` }
    : { name: 'Node.js', ok: false, detail: `v${version} is too old`, fix: 'Install Node.js 24 or newer (see .nvmrc).' };
}

export async function checkDocker(docker: DockerClient): Promise<CheckResult> {
  try {
    const v = await docker.ping(5_000);
    const gvisor = v.runtimes.includes('runsc') ? ', gVisor available' : '';
    return { name: 'Docker engine', ok: true, detail: `${v.version} (API ${v.apiVersion}) at ${docker.endpoint.address}${gvisor}` };
  } catch (error) {
    return { name: 'Docker engine', ok: false, detail: toErrorBody(error).message, fix: dockerFixHint(docker.endpoint) };
  }
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

export async function checkDataFolder(home: string): Promise<CheckResult> {
  try {
    await mkdir(home, { recursive: true, mode: 0o700 });
    const probe = join(home, `.doctor-${randomBytes(4).toString('hex')}`);
    await writeFile(probe, 'ok', { mode: 0o600 });
    await rm(probe);
    return { name: 'Data folder', ok: true, detail: home };
  } catch (error) {
    return { name: 'Data folder', ok: false, detail: `${home}: ${toErrorBody(error).message}`, fix: 'Set SANDPIT_HOME to a folder you can write to.' };
  }
}

export function formatChecks(results: CheckResult[]): string {
  return results
    .map((r) => (r.ok ? `✓ ${r.name}: ${r.detail}` : `✗ ${r.name}: ${r.detail}${r.fix ? `\n    → ${r.fix}` : ''}`))
    .join('\n');
}
