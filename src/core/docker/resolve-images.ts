import { isSandpitError } from '../../shared/api/errors';
import type { Language } from '../../shared/domain/session';
import type { DockerClient } from './docker-client';
import { planExecutorImage } from './image-builder';

/** The flavour whose executor image serves each language by default. */
export const DEFAULT_FLAVOURS: Partial<Record<Language, string>> = { python: 'python' };

export interface ResolvedImages {
  images: Partial<Record<Language, string>>;
  /** Plain-language notes for languages without a built image. */
  missing: string[];
}

/** Finds the built executor image of each language (never builds; `npm run build:images` does). */
export async function resolveExecutorImages(docker: DockerClient, imagesDir?: string): Promise<ResolvedImages> {
  const images: Partial<Record<Language, string>> = {};
  const missing: string[] = [];
  for (const [language, flavour] of Object.entries(DEFAULT_FLAVOURS) as Array<[Language, string]>) {
    try {
      const plan = await planExecutorImage(docker, flavour, { imagesDir });
      if (await docker.imageExists(plan.tag)) images[language] = plan.tag;
      else missing.push(`The ${language} sandbox image (${plan.tag}) is not built. Run "npm run build:images".`);
    } catch (error) {
      if (!isSandpitError(error, 'IMAGE_MISSING') && !isSandpitError(error, 'DOCKER_UNAVAILABLE')) throw error;
      missing.push(error.message);
    }
  }
  return { images, missing };
}
