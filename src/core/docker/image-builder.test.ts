import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeImageDocker } from '../../test-support/fake-image-docker';
import { ensureBaseImage } from './base-image';
import { defaultImagesDir, ensureExecutorImage, executorImageTag, planExecutorImage } from './image-builder';

let imagesDir: string;
const stubBootstrap = { command: process.execPath, args: ['-e', 'process.stdout.write("ROOTFS")'] };

beforeEach(async () => {
  imagesDir = await mkdtemp(join(tmpdir(), 'sandpit-images-'));
  await cp(join(defaultImagesDir(), 'bases.json'), join(imagesDir, 'bases.json'));
  await mkdir(join(imagesDir, 'python'));
  await mkdir(join(imagesDir, 'agents/python'), { recursive: true });
  await writeFile(
    join(imagesDir, 'python/Dockerfile'),
    'ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nCOPY agents/python/agent.py /opt/agent.py\n',
  );
  await writeFile(join(imagesDir, 'agents/python/agent.py'), 'print(1)\n');
});

afterEach(async () => {
  await rm(imagesDir, { recursive: true, force: true });
});

describe('ensureBaseImage', () => {
  it('auto: uses the registry image when it is present locally', async () => {
    const fake = fakeImageDocker(['python:3.12-slim', 'sandpit-base/python:bookworm-requests-curl']);
    expect(await ensureBaseImage(fake.docker, 'python', { imagesDir, source: 'auto' })).toBe('python:3.12-slim');
  });

  it('auto: falls back to the bootstrap image, bootstrapping it when missing', async () => {
    const fake = fakeImageDocker();
    const lines: string[] = [];
    const tag = await ensureBaseImage(fake.docker, 'python', {
      imagesDir,
      source: 'auto',
      bootstrap: stubBootstrap,
      onLog: (l) => lines.push(l),
    });
    expect(tag).toBe('sandpit-base/python:bookworm-requests-curl');
    expect(fake.imports.map((i) => i.tag)).toEqual(['sandpit-base/python:bookworm-requests-curl']);
    expect(lines.join('\n')).toMatch(/python:3.12-slim is not available locally; bootstrapping/);
  });

  it('bootstrap: uses an existing bootstrap image even when the registry one is there', async () => {
    const fake = fakeImageDocker(['python:3.12-slim', 'sandpit-base/python:bookworm-requests-curl']);
    expect(await ensureBaseImage(fake.docker, 'python', { imagesDir, source: 'bootstrap' })).toBe(
      'sandpit-base/python:bookworm-requests-curl',
    );
    expect(fake.imports).toEqual([]);
  });

  it('bootstrap with refresh: bootstraps again', async () => {
    const fake = fakeImageDocker(['sandpit-base/python:bookworm-requests-curl']);
    await ensureBaseImage(fake.docker, 'python', {
      imagesDir,
      source: 'bootstrap',
      refresh: true,
      bootstrap: stubBootstrap,
    });
    expect(fake.removed).toEqual(['sandpit-base/python:bookworm-requests-curl']);
    expect(fake.imports.map((i) => i.tag)).toEqual(['sandpit-base/python:bookworm-requests-curl']);
  });

  it('registry: never pulls; says how to get the image', async () => {
    const fake = fakeImageDocker(['sandpit-base/python:bookworm-requests-curl']);
    await expect(ensureBaseImage(fake.docker, 'python', { imagesDir, source: 'registry' })).rejects.toThrow(
      /python:3.12-slim is not available locally.*docker pull python:3.12-slim.*SANDPIT_BASE_SOURCE=bootstrap/,
    );
  });

  it('a flavour without a registry image is bootstrapped whatever the source', async () => {
    const fake = fakeImageDocker(['sandpit-base/python-data:bookworm-pandas-requests-curl']);
    expect(await ensureBaseImage(fake.docker, 'python-data', { imagesDir, source: 'registry' })).toBe(
      'sandpit-base/python-data:bookworm-pandas-requests-curl',
    );
  });
});

describe('ensureExecutorImage', () => {
  it('builds sandpit/<flavour>:<hash12> once, with BASE_IMAGE and the hash label', async () => {
    const fake = fakeImageDocker(['sandpit-base/python:bookworm-requests-curl']);
    const tag = await ensureExecutorImage(fake.docker, 'python', { imagesDir, source: 'bootstrap' });
    expect(tag).toMatch(/^sandpit\/python:[0-9a-f]{12}$/);
    expect(fake.builds).toHaveLength(1);
    const options = fake.builds[0]?.options;
    expect(options).toMatchObject({
      tag,
      dockerfile: 'python/Dockerfile',
      buildArgs: { BASE_IMAGE: 'sandpit-base/python:bookworm-requests-curl' },
    });
    expect(options?.labels?.['dev.sandpit.image-hash']).toMatch(new RegExp(`^${tag.split(':')[1]}[0-9a-f]{52}$`));

    const lines: string[] = [];
    expect(
      await ensureExecutorImage(fake.docker, 'python', { imagesDir, source: 'bootstrap', onLog: (l) => lines.push(l) }),
    ).toBe(tag);
    expect(fake.builds).toHaveLength(1);
    expect(lines).toContain(`${tag} is up to date`);
  });

  it('builds a new tag when the agent changes', async () => {
    const fake = fakeImageDocker(['sandpit-base/python:bookworm-requests-curl']);
    const first = await ensureExecutorImage(fake.docker, 'python', { imagesDir, source: 'bootstrap' });
    await writeFile(join(imagesDir, 'agents/python/agent.py'), 'print(2)\n');
    const second = await ensureExecutorImage(fake.docker, 'python', { imagesDir, source: 'bootstrap' });
    expect(second).not.toBe(first);
    expect(fake.builds).toHaveLength(2);
  });

  it('fails on a missing Dockerfile before bootstrapping any base', async () => {
    const fake = fakeImageDocker();
    await expect(
      ensureExecutorImage(fake.docker, 'node', { imagesDir, source: 'bootstrap', base: { bootstrap: stubBootstrap } }),
    ).rejects.toThrow(/javascript does not exist/);
    expect(fake.imports).toEqual([]);
  });

  it('python and python-data share a Dockerfile but not a tag', async () => {
    const fake = fakeImageDocker(['sandpit-base/python:bookworm-requests-curl', 'sandpit-base/python-data:bookworm-pandas-requests-curl']);
    const python = await ensureExecutorImage(fake.docker, 'python', { imagesDir, source: 'bootstrap' });
    const data = await ensureExecutorImage(fake.docker, 'python-data', { imagesDir, source: 'bootstrap' });
    expect(data).toMatch(/^sandpit\/python-data:/);
    expect(data.split(':')[1]).not.toBe(python.split(':')[1]);
  });
});

describe('executorImageTag', () => {
  it('computes the same tag ensureExecutorImage builds, without building', async () => {
    const fake = fakeImageDocker(['sandpit-base/python:bookworm-requests-curl']);
    const tag = await executorImageTag(fake.docker, 'python', { imagesDir, source: 'bootstrap' });
    expect(fake.builds).toHaveLength(0);
    expect(await ensureExecutorImage(fake.docker, 'python', { imagesDir, source: 'bootstrap' })).toBe(tag);
  });

  it('says to build the images when the base is not there yet', async () => {
    const fake = fakeImageDocker();
    await expect(planExecutorImage(fake.docker, 'python', { imagesDir, source: 'bootstrap' })).rejects.toThrow(
      /npm run build:images/,
    );
  });
});
