import { isSandpitError } from '../../shared/api/errors';
import { LANGUAGES, defaultFlavourOf } from '../../shared/domain/languages';
import type { Flavour } from '../../shared/domain/languages';
import type { DockerClient } from './docker-client';
import { planExecutorImage } from './image-builder';

export interface ResolvedImages {
  /** The built executor image of each flavour the languages use by default. */
  images: Partial<Record<Flavour, string>>;
  /** Plain-language notes for flavours without a built image (one per flavour). */
  missing: string[];
}

/** Finds the built executor image of each language's default flavour (never builds; `npm run build:images` does). */
export async function resolveExecutorImages(docker: DockerClient, imagesDir?: string): Promise<ResolvedImages> {
  const images: Partial<Record<Flavour, string>> = {};
  const missing: string[] = [];
  // Several languages share a flavour (bash runs on the python image): each is looked up once.
  const flavours = [...new Set(LANGUAGES.map((language) => defaultFlavourOf(language)))];
  for (const flavour of flavours) {
    try {
      const plan = await planExecutorImage(docker, flavour, { imagesDir });
      if (await docker.imageExists(plan.tag)) images[flavour] = plan.tag;
      else missing.push(`The ${flavour} sandbox image (${plan.tag}) is not built. Run "npm run build:images".`);
    } catch (error) {
      if (!isSandpitError(error, 'IMAGE_MISSING') && !isSandpitError(error, 'DOCKER_UNAVAILABLE')) throw error;
      missing.push(error.message);
    }
  }
  return { images, missing };
}
