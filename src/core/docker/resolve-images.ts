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
  // Several languages share a flavour (bash runs on the python image): each is looked up once, all at once (each
  // look-up is a few requests to the engine, and the first sandbox waits for them).
  const flavours = [...new Set(LANGUAGES.map((language) => defaultFlavourOf(language)))];
  const found = await Promise.all(
    flavours.map(async (flavour): Promise<{ flavour: Flavour; tag?: string; missing?: string }> => {
      try {
        const plan = await planExecutorImage(docker, flavour, { imagesDir });
        if (await docker.imageExists(plan.tag)) return { flavour, tag: plan.tag };
        return { flavour, missing: `The ${flavour} sandbox image (${plan.tag}) is not built. Run "npm run build:images".` };
      } catch (error) {
        if (!isSandpitError(error, 'IMAGE_MISSING') && !isSandpitError(error, 'DOCKER_UNAVAILABLE')) throw error;
        return { flavour, missing: error.message };
      }
    }),
  );
  const images: Partial<Record<Flavour, string>> = {};
  const missing: string[] = [];
  for (const { flavour, tag, missing: why } of found) {
    if (tag !== undefined) images[flavour] = tag;
    if (why !== undefined) missing.push(why);
  }
  return { images, missing };
}
