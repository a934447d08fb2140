import { Readable } from 'node:stream';
import { pack } from 'tar-stream';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../log';
import { onEngine, testEngines } from '../../test-support/engines';
import { DockerodeClient } from './dockerode-client';

/** A root filesystem of one file, as a tar stream (what a bootstrap hands the engine). */
function tinyRootfs(): Readable {
  const tar = pack();
  tar.entry({ name: 'etc/sandpit-probe', mode: 0o644 }, 'probe\n');
  tar.finalize();
  return Readable.from(tar);
}

// A bootstrapped base image is imported under its exact name and tag, on every engine the tests run on
// (Podman's compatible API once named such an import `…:latest`, so its bootstrap found no image).
for (const { engine, label, skip } of testEngines()) {
  describe.skipIf(skip)(`importing a root filesystem as an image, on ${label}`, () => {
    const tag = `sandpit-test/import-probe:v${process.pid}`;
    const client = (): DockerodeClient => {
      const host = onEngine(engine).dockerHost;
      return new DockerodeClient({ ...(host ? { host } : {}), logger: silentLogger });
    };
    afterAll(async () => {
      if (!skip) await client().removeImage(tag);
    });

    it('gives the image the exact name:tag asked for', async () => {
      await client().importImage(tinyRootfs(), tag);
      const image = await client().inspectImage(tag);
      expect(image?.id).toMatch(/^(sha256:)?[0-9a-f]{64}$/);
    });
  });
}
