import { createHash } from 'node:crypto';
import type { EnvironmentDefinition } from '../../shared/domain/environment';
import { MANAGER_IDS } from '../../shared/domain/package-managers';

/** What goes into an environment's image; name, description, limits and network do not. */
export type ImageInputs = Pick<EnvironmentDefinition, 'language' | 'base' | 'packages'>;

function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

/**
 * The managers whose lists are in every hash, empty or not: the first three. A manager added later is in the
 * hash only when it lists something, so the hash (and the image tag) of every environment made before it stays.
 */
const ALWAYS_HASHED: ReadonlySet<string> = new Set(['apt', 'npm', 'pip']);

/**
 * The image identity of a definition: sha256 (hex) of a canonical JSON of its language, base,
 * packages (sorted, per installer) and the tag of the base image it builds on. Two definitions
 * with the same hash build the same image, so the image tag can be derived from it.
 */
export function definitionHash(definition: ImageInputs, baseImageTag: string): string {
  // Keys in a fixed (sorted) order at every level: JSON.stringify keeps insertion order.
  const canonical = {
    base: definition.base,
    baseImageTag,
    language: definition.language,
    packages: Object.fromEntries(
      [...MANAGER_IDS]
        .sort()
        .filter((manager) => ALWAYS_HASHED.has(manager) || definition.packages[manager].length > 0)
        .map((manager) => [manager, sortedUnique(definition.packages[manager])]),
    ),
    version: 1,
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}
