/**
 * npm run build:images [-- --only python[,python-data]] [--source auto|registry|bootstrap] [--images-dir DIR] [--refresh-base]
 *
 * Builds the executor images (default: every flavour of the language registry), bootstrapping their base images from
 * Debian packages when no registry image is present locally, and prints the resulting tags.
 */
import { parseArgs } from 'node:util';
import { BASE_SOURCES } from '../src/core/docker/image-bases';
import type { BaseSource } from '../src/core/docker/image-bases';
import { DockerodeClient } from '../src/core/docker/dockerode-client';
import { defaultImagesDir, ensureExecutorImage } from '../src/core/docker/image-builder';
import { createLogger } from '../src/core/log';
import { FLAVOURS } from '../src/shared/domain/languages';

const DEFAULT_FLAVOURS: readonly string[] = FLAVOURS;

const USAGE = `usage: npm run build:images -- [--only FLAVOUR[,FLAVOUR]] [--source auto|registry|bootstrap] [--images-dir DIR] [--refresh-base]
  --only          flavours to build (repeatable); default: ${DEFAULT_FLAVOURS.join(', ')}
  --source        where base images come from; default: SANDPIT_BASE_SOURCE, else auto
                  (auto = the registry image if present locally, else a Debian bootstrap via mmdebstrap)
  --images-dir    the executor-image/ directory; default: SANDPIT_IMAGES_DIR, else this repository's
  --refresh-base  bootstrap the base images again even if they exist`;

function fail(message: string): never {
  process.stderr.write(`build-images: ${message}\n`);
  process.exit(1);
}

function options(): { flavours: string[]; source?: BaseSource; imagesDir: string; refresh: boolean } {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        only: { type: 'string', multiple: true },
        source: { type: 'string' },
        'images-dir': { type: 'string' },
        'refresh-base': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: false,
    }).values;
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`);
  }
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const source = parsed.source;
  if (source !== undefined && !(BASE_SOURCES as readonly string[]).includes(source))
    fail(`--source must be one of ${BASE_SOURCES.join(', ')}\n${USAGE}`);
  const flavours = (parsed.only ?? DEFAULT_FLAVOURS)
    .flatMap((f) => f.split(','))
    .map((f) => f.trim())
    .filter(Boolean);
  return {
    flavours: [...new Set(flavours)],
    source: source as BaseSource | undefined,
    imagesDir: parsed['images-dir'] ?? (process.env.SANDPIT_IMAGES_DIR || defaultImagesDir()),
    refresh: parsed['refresh-base'],
  };
}

async function main(): Promise<number> {
  const { flavours, source, imagesDir, refresh } = options();
  const docker = new DockerodeClient({ logger: createLogger({ script: 'build-images' }) });
  try {
    const engine = await docker.ping(10_000);
    process.stdout.write(
      `Docker ${engine.version} at ${docker.endpoint.address}; images from ${imagesDir}; base source ${source ?? process.env.SANDPIT_BASE_SOURCE ?? 'auto'}\n`,
    );
  } catch (error) {
    fail((error as Error).message);
  }

  const results: Array<{ flavour: string; tag?: string; error?: string; seconds: number }> = [];
  for (const flavour of flavours) {
    const started = Date.now();
    process.stdout.write(`[${flavour}] ensuring the executor image\n`);
    try {
      const tag = await ensureExecutorImage(docker, flavour, {
        imagesDir,
        source,
        base: { refresh },
        onLog: (line) => process.stdout.write(`[${flavour}] ${line}\n`),
      });
      results.push({ flavour, tag, seconds: (Date.now() - started) / 1000 });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(`[${flavour}] FAILED: ${message}\n`);
      results.push({ flavour, error: message, seconds: (Date.now() - started) / 1000 });
    }
  }

  process.stdout.write('\n');
  for (const r of results) {
    process.stdout.write(`${r.flavour.padEnd(12)} ${r.tag ?? 'FAILED'}  (${r.seconds.toFixed(1)} s)\n`);
  }
  const failed = results.filter((r) => r.error);
  if (failed.length > 0) {
    process.stderr.write(
      `build-images: ${failed.length} of ${results.length} image(s) failed: ${failed.map((r) => `${r.flavour}: ${r.error}`).join('; ')}\n`,
    );
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => fail(error instanceof Error ? (error.stack ?? error.message) : String(error)),
);
