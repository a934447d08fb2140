import { SandpitError } from '../../shared/api/errors';
import { ensureBase, findBaseImage } from './base-image';
import type { BaseImage, BaseImageOptions } from './base-image';
import { collectContextFiles, dockerfilePath, executorImageHash, packContext } from './build-context';
import type { ContextFile } from './build-context';
import type { DockerClient } from './docker-client';
import { loadFlavour } from './image-bases';
import type { BaseSource, FlavourDefinition } from './image-bases';
import { defaultImagesDir } from './images-dir';
import { LABEL } from './labels';

export { defaultImagesDir } from './images-dir';
export type { BaseSource } from './image-bases';

export interface ExecutorImageOptions {
  /** The `executor-image/` directory; default: the repository's (see defaultImagesDir). */
  imagesDir?: string;
  /** Default: SANDPIT_BASE_SOURCE, else `auto`. */
  source?: BaseSource;
  onLog?: (line: string) => void;
  /** Passed on to ensureBaseImage (refresh, bootstrap timeout). */
  base?: Pick<BaseImageOptions, 'refresh' | 'bootstrap'>;
}

export interface ExecutorImagePlan {
  flavour: string;
  /** `sandpit/<flavour>:<first 12 hex of hash>`. */
  tag: string;
  hash: string;
  base: BaseImage;
  definition: FlavourDefinition;
  files: ContextFile[];
}

export function executorTagFor(flavour: string, hash: string): string {
  return `sandpit/${flavour}:${hash.slice(0, 12)}`;
}

async function sources(
  imagesDir: string,
  flavour: string,
): Promise<{ definition: FlavourDefinition; files: ContextFile[] }> {
  const definition = await loadFlavour(imagesDir, flavour);
  return { definition, files: await collectContextFiles(imagesDir, definition) };
}

function plan(
  flavour: string,
  base: BaseImage,
  { definition, files }: { definition: FlavourDefinition; files: ContextFile[] },
): ExecutorImagePlan {
  const hash = executorImageHash(flavour, base, files);
  return { flavour, tag: executorTagFor(flavour, hash), hash, base, definition, files };
}

/**
 * What `ensureExecutorImage` would produce right now, without building anything.
 * Throws IMAGE_MISSING when the base image is not there yet (the tag depends on its id).
 */
export async function planExecutorImage(
  docker: DockerClient,
  flavour: string,
  options: Omit<ExecutorImageOptions, 'onLog' | 'base'> = {},
): Promise<ExecutorImagePlan> {
  const imagesDir = options.imagesDir ?? defaultImagesDir();
  const found = await sources(imagesDir, flavour);
  const base = await findBaseImage(docker, flavour, { imagesDir, source: options.source });
  if (!base) {
    throw new SandpitError(
      'IMAGE_MISSING',
      `The base image for "${flavour}" has not been built yet. Build the images with "npm run build:images".`,
    );
  }
  return plan(flavour, base, found);
}

/** The executor image tag for a flavour as things stand (the image itself may not be built yet). */
export async function executorImageTag(
  docker: DockerClient,
  flavour: string,
  options: Omit<ExecutorImageOptions, 'onLog' | 'base'> = {},
): Promise<string> {
  return (await planExecutorImage(docker, flavour, options)).tag;
}

/**
 * Makes sure the flavour's executor image exists and returns its tag. The tag is a content hash of the
 * Dockerfile dir, the agent dir and the base image, so an existing tag is returned at once and any change
 * to those builds a new image.
 */
export async function ensureExecutorImage(
  docker: DockerClient,
  flavour: string,
  options: ExecutorImageOptions = {},
): Promise<string> {
  const imagesDir = options.imagesDir ?? defaultImagesDir();
  const onLog = options.onLog ?? ((): void => undefined);
  // Read the sources first: a missing Dockerfile should fail before minutes of bootstrapping.
  const found = await sources(imagesDir, flavour);
  const base = await ensureBase(docker, flavour, { imagesDir, source: options.source, onLog, ...options.base });
  const p = plan(flavour, base, found);
  if (await docker.imageExists(p.tag)) {
    onLog(`${p.tag} is up to date`);
    return p.tag;
  }
  const started = Date.now();
  onLog(`building ${p.tag} from ${base.tag} (${p.files.length} files)`);
  const context = await packContext(p.files);
  await docker.buildImage(
    context,
    {
      tag: p.tag,
      dockerfile: dockerfilePath(p.definition),
      buildArgs: { BASE_IMAGE: base.tag },
      labels: { [LABEL.imageHash]: p.hash, [LABEL.imageFlavour]: flavour, [LABEL.imageBase]: base.tag },
    },
    onLog,
  );
  onLog(`built ${p.tag} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return p.tag;
}
