import { isSandpitError } from '../../shared/api/errors';
import type { Language } from '../../shared/domain/runtimes';
import type { DockerClient } from './docker-client';
import { planExecutorImage } from './image-builder';

/** The flavour whose executor image serves each language by default (bash runs on the python image, its agent in bash mode). */
export const DEFAULT_FLAVOURS: Partial<Record<Language, string>> = { python: 'python', javascript: 'node', bash: 'python' };

export interface ResolvedImages {
  images: Partial<Record<Language, string>>;
  /** Plain-language notes for languages without a built image (one per flavour). */
  missing: string[];
}

/** Finds the built executor image of each language (never builds; `npm run build:images` does). */
export async function resolveExecutorImages(docker: DockerClient, imagesDir?: string): Promise<ResolvedImages> {
  const images: Partial<Record<Language, string>> = {};
  const missing: string[] = [];
  // Several languages may share a flavour: each flavour is looked up (and reported missing) once.
  const byFlavour = new Map<string, string | undefined>();
  for (const [language, flavour] of Object.entries(DEFAULT_FLAVOURS) as Array<[Language, string]>) {
    if (!byFlavour.has(flavour)) byFlavour.set(flavour, await findFlavour(docker, flavour, language, imagesDir, missing));
    const tag = byFlavour.get(flavour);
    if (tag) images[language] = tag;
  }
  return { images, missing };
}

async function findFlavour(docker: DockerClient, flavour: string, language: Language, imagesDir: string | undefined, missing: string[]): Promise<string | undefined> {
  try {
    const plan = await planExecutorImage(docker, flavour, { imagesDir });
    if (await docker.imageExists(plan.tag)) return plan.tag;
    missing.push(`The ${language} sandbox image (${plan.tag}) is not built. Run "npm run build:images".`);
  } catch (error) {
    if (!isSandpitError(error, 'IMAGE_MISSING') && !isSandpitError(error, 'DOCKER_UNAVAILABLE')) throw error;
    missing.push(error.message);
  }
  return undefined;
}
