import { SandpitError } from '../../shared/api/errors';
import { bootstrapBaseImage } from './bootstrap-base';
import type { BootstrapOptions } from './bootstrap-base';
import type { DockerClient } from './docker-client';
import { loadFlavour, resolveBaseSource } from './image-bases';
import type { BaseSource, FlavourDefinition } from './image-bases';
import { defaultImagesDir } from './images-dir';

export interface BaseImageOptions {
  /** Default: SANDPIT_BASE_SOURCE, else `auto`. */
  source?: BaseSource;
  imagesDir?: string;
  onLog?: (line: string) => void;
  /** Remove an existing bootstrap image first and bootstrap it again. */
  refresh?: boolean;
  /** Passed to the bootstrap (its timeout; tests give it a command of their own). */
  bootstrap?: Omit<BootstrapOptions, 'onLog'>;
}

export interface BaseImage {
  tag: string;
  /** The image id (`sha256:…`): part of the executor image's hash. */
  id: string;
  from: 'registry' | 'bootstrap';
}

function registryMissing(definition: FlavourDefinition, registry: string): SandpitError {
  return new SandpitError(
    'IMAGE_MISSING',
    `The base image ${registry} is not available locally and Sandpit does not pull it. ` +
      `Pull it with "docker pull ${registry}", or set SANDPIT_BASE_SOURCE=bootstrap to build the equivalent ` +
      `${definition.bootstrap.tag} from Debian packages (needs mmdebstrap).`,
  );
}

/** Which base a flavour would use right now, without building anything; undefined when it must be made first. */
export async function findBaseImage(
  docker: DockerClient,
  flavour: string,
  options: Omit<BaseImageOptions, 'refresh' | 'bootstrap'> = {},
): Promise<BaseImage | undefined> {
  const definition = await loadFlavour(options.imagesDir ?? defaultImagesDir(), flavour);
  const source = resolveBaseSource(options.source);
  const { registry } = definition;
  if (registry && source !== 'bootstrap') {
    const image = await docker.inspectImage(registry);
    if (image) return { tag: registry, id: image.id, from: 'registry' };
    if (source === 'registry') throw registryMissing(definition, registry);
  }
  const image = await docker.inspectImage(definition.bootstrap.tag);
  return image ? { tag: definition.bootstrap.tag, id: image.id, from: 'bootstrap' } : undefined;
}

/**
 * Makes sure the flavour's base image exists and returns its tag.
 * - `registry`: the registry image must be present locally (it is never pulled).
 * - `bootstrap`: the bootstrap tag if present, else mmdebstrap + import.
 * - `auto`: the registry image if present locally, else as `bootstrap`.
 * A flavour without a registry image (registry: null) is always bootstrapped.
 */
export async function ensureBaseImage(
  docker: DockerClient,
  flavour: string,
  options: BaseImageOptions = {},
): Promise<string> {
  return (await ensureBase(docker, flavour, options)).tag;
}

/** As `ensureBaseImage`, returning the image id and where it came from too. */
export async function ensureBase(
  docker: DockerClient,
  flavour: string,
  options: BaseImageOptions = {},
): Promise<BaseImage> {
  const imagesDir = options.imagesDir ?? defaultImagesDir();
  const onLog = options.onLog ?? ((): void => undefined);
  const definition = await loadFlavour(imagesDir, flavour);
  const source = resolveBaseSource(options.source);
  const { tag } = definition.bootstrap;

  if (
    options.refresh &&
    (source === 'bootstrap' ||
      !definition.registry ||
      (source === 'auto' && !(await docker.imageExists(definition.registry))))
  ) {
    onLog(`removing ${tag} to bootstrap it again`);
    await docker.removeImage(tag);
  }
  const found = await findBaseImage(docker, flavour, { imagesDir, source });
  if (found) {
    onLog(`base image for ${flavour}: ${found.tag} (${found.from}, ${found.id.slice(7, 19)})`);
    return found;
  }
  if (definition.registry && source !== 'bootstrap')
    onLog(`${definition.registry} is not available locally; bootstrapping ${tag} from Debian packages`);
  await bootstrapBaseImage(docker, definition.bootstrap, { ...options.bootstrap, onLog });
  const image = await docker.inspectImage(tag);
  if (!image) throw new SandpitError('IMAGE_MISSING', `Bootstrapping ${tag} finished but the engine has no such image`);
  return { tag, id: image.id, from: 'bootstrap' };
}
