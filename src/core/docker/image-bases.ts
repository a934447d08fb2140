import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { SandpitError } from '../../shared/api/errors';

/** Where a base image comes from: a registry image present locally, a Debian bootstrap, or whichever is there. */
export type BaseSource = 'auto' | 'registry' | 'bootstrap';
export const BASE_SOURCES: readonly BaseSource[] = ['auto', 'registry', 'bootstrap'];

const imageTag = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._/-]*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$/, 'an image tag like name:tag');
const relativeDir = z.string().regex(/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/, 'a relative directory without ..');

const flavourSchema = z.object({
  /** The agent's language: the build context holds `agents/<language>/`. */
  language: z.string().regex(/^[a-z0-9-]+$/),
  /** The directory (relative to executor-image/) holding this flavour's Dockerfile. */
  dockerfileDir: relativeDir,
  /** The registry base image, or null when this flavour is only ever bootstrapped. */
  registry: imageTag.nullable(),
  bootstrap: z.object({
    tag: imageTag,
    suite: z.string().regex(/^[a-z]+$/),
    packages: z.array(z.string().regex(/^[a-z0-9][a-z0-9+.-]*$/)).min(1),
  }),
});

export type FlavourDefinition = z.infer<typeof flavourSchema>;
export type ImageBases = Record<string, FlavourDefinition>;

const basesSchema = z.record(z.string().regex(/^[a-z0-9][a-z0-9-]*$/), flavourSchema);

/** Reads and validates `<imagesDir>/bases.json`. */
export async function loadImageBases(imagesDir: string): Promise<ImageBases> {
  const file = join(imagesDir, 'bases.json');
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch (error) {
    throw new SandpitError('IMAGE_MISSING', `Cannot read the image definitions ${file}: ${(error as Error).message}`);
  }
  const parsed = basesSchema.safeParse(JSON.parse(raw));
  if (!parsed.success) {
    throw new SandpitError(
      'INTERNAL',
      `Invalid ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}

/** The definition of one flavour, or a clear error naming the known ones. */
export async function loadFlavour(imagesDir: string, flavour: string): Promise<FlavourDefinition> {
  const bases = await loadImageBases(imagesDir);
  const definition = Object.hasOwn(bases, flavour) ? bases[flavour] : undefined;
  if (!definition) {
    throw new SandpitError(
      'INVALID_INPUT',
      `Unknown image flavour "${flavour}" (known: ${Object.keys(bases).join(', ')})`,
    );
  }
  return definition;
}

/** The explicit choice, else SANDPIT_BASE_SOURCE, else `auto`. An unknown value is an error, never ignored. */
export function resolveBaseSource(explicit?: BaseSource, env: NodeJS.ProcessEnv = process.env): BaseSource {
  if (explicit) return explicit;
  const value = env.SANDPIT_BASE_SOURCE?.trim();
  if (!value) return 'auto';
  if ((BASE_SOURCES as readonly string[]).includes(value)) return value as BaseSource;
  throw new SandpitError(
    'INVALID_INPUT',
    `SANDPIT_BASE_SOURCE must be one of ${BASE_SOURCES.join(', ')} (got "${value}")`,
  );
}
