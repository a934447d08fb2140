import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventBus } from '../events/event-bus';
import { parseTar } from '../files/safe-tar';
import { silentLogger } from '../log';
import type { ImageBuild, SandboxImages } from '../sandbox/sandbox-images';
import { EnvironmentBuilder } from './environment-builder';
import type { BuildSettings } from './environment-builder';
import { EnvironmentStore } from './environment-store';

// No engine: a fake whose builds succeed or fail on demand, to see what a build is given and what it gives back.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandpit-builder-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function builderWith(
  build: (request: ImageBuild) => Promise<void>,
  settings: () => BuildSettings | Promise<BuildSettings>,
  exists: (tag: string) => Promise<boolean> = () => Promise.resolve(false),
): { builder: EnvironmentBuilder; store: EnvironmentStore } {
  const store = new EnvironmentStore({ dir, logger: silentLogger, presets: { offlineBase: true } });
  const images = {
    exists,
    build: (request: ImageBuild) => build(request),
  } as Partial<SandboxImages> as SandboxImages;
  const builder = new EnvironmentBuilder({
    images,
    store,
    bus: new EventBus(),
    log: silentLogger,
    baseImage: () => Promise.resolve('sandpit/python:test'),
    baseImageIfBuilt: () => Promise.resolve('sandpit/python:test'),
    settings,
  });
  return { builder, store };
}

describe('EnvironmentBuilder: the build\'s proxy credential', () => {
  it('builds with the proxy variables it was given and releases them once the build is over, succeeded or failed', async () => {
    const events: string[] = [];
    let fail = false;
    const { builder, store } = builderWith(
      (options) => {
        events.push(`build ${options.buildArgs?.HTTP_PROXY ?? 'no proxy'} on ${options.network ?? 'no network'}`);
        return fail ? Promise.reject(new Error('pip failed')) : Promise.resolve();
      },
      () => {
        const n = events.filter((e) => e.startsWith('settings')).length + 1;
        events.push(`settings ${n}`);
        return {
          pipIndexUrl: 'http://pypi-mirror.test/simple',
          npmRegistryUrl: 'http://npm-mirror.test/',
          cranRepositoryUrl: 'http://cran-mirror.test/',
          buildNetwork: 'sandpit-egress-x',
          proxyEnv: { HTTP_PROXY: `http://build-${n}:secret@10.0.0.1:3128` },
          release: () => void events.push(`release ${n}`),
        };
      },
    );
    const env = await store.create({ name: 'With packages', language: 'python', packages: { pip: ['sandpit_demo_a'] } });
    expect((await builder.build(env.id, true)).build?.state).toBe('ready');
    fail = true;
    expect((await builder.build(env.id, true)).build?.state).toBe('failed');
    expect(events).toEqual([
      'settings 1',
      'build http://build-1:secret@10.0.0.1:3128 on sandpit-egress-x',
      'release 1',
      'settings 2',
      'build http://build-2:secret@10.0.0.1:3128 on sandpit-egress-x',
      'release 2',
    ]);
  });
});

describe("EnvironmentBuilder: an R environment's build", () => {
  it("bakes Debian's r-cran-* builds, and a name Debian does not have is said in apt's words and marked as the person wrote it", async () => {
    const store = new EnvironmentStore({ dir, logger: silentLogger, presets: { offlineBase: true } });
    let dockerfile = '';
    const images = {
      exists: () => Promise.resolve(false),
      build: async (request: ImageBuild, onLog: (line: string) => void) => {
        dockerfile = (await parseTar(request.context, { maxFileBytes: 1 << 20, maxTotalBytes: 1 << 20, maxEntries: 4 }))[0]!.content.toString();
        onLog('Step 4/6 : RUN ["apt-get","install","-y","--no-install-recommends","r-cran-ggplot2","r-cran-sandpit.missing"]');
        onLog('E: Unable to locate package r-cran-sandpit.missing');
        throw new Error("The command '/bin/sh -c apt-get install' returned a non-zero code: 100");
      },
    } as Partial<SandboxImages> as SandboxImages;
    const builder = new EnvironmentBuilder({
      images,
      store,
      bus: new EventBus(),
      log: silentLogger,
      baseImage: () => Promise.resolve('sandpit/r:test'),
      baseImageIfBuilt: () => Promise.resolve('sandpit/r:test'),
      settings: () => ({ pipIndexUrl: 'http://pypi.test/simple', npmRegistryUrl: 'http://npm.test/', cranRepositoryUrl: 'http://cran.test/' }),
    });
    const env = await store.create({ name: 'R with packages', language: 'r', packages: { cran: ['ggplot2', 'Sandpit.Missing'] } });
    const built = await builder.build(env.id, true);
    expect(dockerfile).toContain('RUN ["apt-get","install","-y","--no-install-recommends","r-cran-ggplot2","r-cran-sandpit.missing"]');
    expect(built.build).toMatchObject({ state: 'failed', failedPackage: 'Sandpit.Missing' });
    expect(built.build?.diagnosis).toMatchObject({ cause: 'not-found', affected: ['r-cran-sandpit.missing'] });
    expect(built.build?.error).toBe("“r-cran-sandpit.missing” was not found on the Debian package mirror (the base image's package mirror), or not in a version that fits.");
  });
});

describe('EnvironmentBuilder: the image of a ready environment, without a build or a write', () => {
  it('is the base image for a preset with no packages once that image is there, nothing for one that needs a build, and writes nothing', async () => {
    const noBuild = (): Promise<BuildSettings> => Promise.reject(new Error('no build expected'));
    let builds = 0;
    const counted = (): Promise<void> => {
      builds += 1;
      return Promise.resolve();
    };
    // the image is not there: not ready
    const missing = builderWith(counted, noBuild);
    expect(await missing.builder.readyImage(await missing.store.get('python'))).toBeUndefined();
    const { builder, store } = builderWith(counted, noBuild, (tag) => Promise.resolve(tag === 'sandpit/python:test'));
    const preset = await store.get('python');
    expect(await builder.readyImage(preset)).toBe('sandpit/python:test');
    expect((await builder.status(preset)).state).toBe('ready');
    // nothing recorded: the preset's file is not there yet (imageFor records it)
    expect((await store.get('python')).build).toBeUndefined();
    const withPackages = await store.create({ name: 'Plot', language: 'python', packages: { pip: ['matplotlib'] } });
    expect(await builder.readyImage(withPackages)).toBeUndefined();
    expect(builds).toBe(0);
    // imageFor records the preset as ready with its image, in one write
    expect(await builder.imageFor('python')).toBe('sandpit/python:test');
    expect(await store.get('python')).toMatchObject({ image: { tag: 'sandpit/python:test' }, build: { state: 'ready' } });
  });
});
