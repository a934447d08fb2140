/** The python-data executor image the specs' Python sessions use, and the containers a process left behind. */
import { execFile } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DockerodeClient } from '../../src/core/docker/dockerode-client';
import { LABEL } from '../../src/core/docker/labels';
import { silentLogger } from '../../src/core/log';
import { REPO_ROOT } from './serve-process';

/** The python-data image's tag (Python with numpy, pandas and matplotlib), up to date with executor-image/. */
export function pythonDataImage(onLog: (text: string) => void = (text) => process.stderr.write(text)): Promise<string> {
  const tsx = join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const script = join(REPO_ROOT, 'e2e', 'support', 'resolve-image-cli.ts');
  return new Promise((resolveTag, reject) => {
    const child = execFile(process.execPath, [tsx, script, 'python-data'], { cwd: REPO_ROOT, timeout: 15 * 60_000 }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`Could not find or build the python-data image: ${stderr.trim() || error.message}`));
        return;
      }
      const tag = stdout.trim().split('\n').pop() ?? '';
      if (tag) resolveTag(tag);
      else reject(new Error('The image script printed no tag.'));
    });
    child.stderr?.on('data', (chunk: Buffer | string) => onLog(String(chunk)));
  });
}

/** Containers the process `pid` still owns on this host (Sandpit labels each one with its owner). */
export async function containersOwnedBy(pid: number): Promise<string[]> {
  const docker = new DockerodeClient({ logger: silentLogger });
  const list = await docker.listContainers({ [LABEL.managed]: 'true', [LABEL.ownerPid]: String(pid), [LABEL.ownerHost]: hostname() });
  return list.map((c) => `${c.id.slice(0, 12)} ${c.names.join(',')} (${c.state})`);
}

/** The test package index the e2e Sandpit installs from: its URL as containers on `network` see it. */
export interface E2ePackageIndex {
  url: string;
  network: string;
}

function runIndexCli(args: string[]): Promise<string> {
  const tsx = join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const script = join(REPO_ROOT, 'e2e', 'support', 'package-index-cli.ts');
  return new Promise((resolveOut, reject) => {
    execFile(process.execPath, [tsx, script, ...args], { cwd: REPO_ROOT, timeout: 5 * 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`The test package index (${args[0]}) failed: ${stderr.trim() || error.message}`));
      else resolveOut(stdout.trim().split('\n').pop() ?? '');
    });
  });
}

/** Starts the demo package index (sandpit_demo_a, sandpit_demo_b) on an internal Docker network of its own. */
export async function startE2ePackageIndex(): Promise<E2ePackageIndex & { stop(): Promise<void> }> {
  const info = JSON.parse(await runIndexCli(['start'])) as E2ePackageIndex;
  return { ...info, stop: async () => void (await runIndexCli(['stop', info.network])) };
}
