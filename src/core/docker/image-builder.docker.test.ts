import { randomUUID } from 'node:crypto';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { extract } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { testDocker } from '../../test-support/docker';
import type { DockerClient } from './docker-client';
import { defaultImagesDir, ensureExecutorImage } from './image-builder';
import { LABEL } from './labels';

/** The real client, counting buildImage calls. */
function countingDocker(inner: DockerClient): { docker: DockerClient; builds: () => number } {
  let builds = 0;
  const docker = new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key === 'buildImage') {
        return (...args: Parameters<DockerClient['buildImage']>) => {
          builds += 1;
          return target.buildImage(...args);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { docker, builds: () => builds };
}

async function tarNames(stream: Readable): Promise<string[]> {
  const names: string[] = [];
  const ex = extract();
  stream.pipe(ex);
  for await (const entry of ex) {
    names.push(entry.header.name);
    entry.resume();
  }
  return names;
}

describe('ensureExecutorImage against the engine', () => {
  const real = testDocker();
  let imagesDir: string;
  const built: string[] = [];

  beforeAll(async () => {
    // A stand-in Dockerfile and a unique agent, so the first call really builds.
    imagesDir = await mkdtemp(join(tmpdir(), 'sandpit-images-'));
    await cp(join(defaultImagesDir(), 'bases.json'), join(imagesDir, 'bases.json'));
    await mkdir(join(imagesDir, 'python'));
    await mkdir(join(imagesDir, 'agents/python'), { recursive: true });
    await writeFile(
      join(imagesDir, 'python/Dockerfile'),
      'ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nCOPY agents/python/ /opt/sandpit/\nCMD ["python3", "/opt/sandpit/agent.py"]\n',
    );
    await writeFile(join(imagesDir, 'agents/python/agent.py'), `print(${JSON.stringify(randomUUID())})\n`);
    await writeFile(join(imagesDir, 'agents/python/agent.test.ts'), '// never in the image\n');
  });

  afterAll(async () => {
    for (const tag of built) await real.removeImage(tag);
    await rm(imagesDir, { recursive: true, force: true });
  });

  it('builds once, then finds the image up to date without building', async () => {
    const { docker, builds } = countingDocker(real);
    const lines: string[] = [];
    const tag = await ensureExecutorImage(docker, 'python', { imagesDir, onLog: (l) => lines.push(l) });
    built.push(tag);
    expect(tag).toMatch(/^sandpit\/python:[0-9a-f]{12}$/);
    expect(builds()).toBe(1);
    expect(await real.imageExists(tag)).toBe(true);
    const info = await real.inspectImage(tag);
    expect(info?.labels[LABEL.imageHash]?.startsWith(tag.split(':')[1] ?? '-')).toBe(true);
    expect(info?.labels[LABEL.imageFlavour]).toBe('python');

    expect(await ensureExecutorImage(docker, 'python', { imagesDir })).toBe(tag);
    expect(builds()).toBe(1);
  });

  it('puts the agent dir in the image, without its tests', async () => {
    const tag = built[0];
    if (!tag) throw new Error('the build test did not run');
    const id = await real.createContainer({
      image: tag,
      env: {},
      labels: {},
      user: '10001',
      workingDir: '/',
      openStdin: false,
      hostConfig: {},
    });
    try {
      const names = await tarNames(await real.getArchive(id, '/opt/sandpit'));
      expect(names.sort()).toEqual(['sandpit/', 'sandpit/agent.py']);
    } finally {
      await real.removeContainer(id);
    }
  });

  it('the globalSetup provided images exist', async () => {
    const { python, 'python-data': data } = inject('images');
    for (const tag of [python, data]) if (tag) expect(await real.imageExists(tag)).toBe(true);
  });
});
