import { SandpitError } from '../../shared/api/errors';
import { ENVIRONMENT_ID, environmentNameKey } from '../../shared/domain/environment';
import type { Environment } from '../../shared/domain/environment';
import type { EnvironmentStore } from './environment-store';

/**
 * The environment a caller means: by its id, else by the name a person gave it (case and spaces
 * aside), as an E2B template is named by its user. An unknown one names the environments that exist.
 */
export async function findEnvironment(store: EnvironmentStore, reference: string): Promise<Environment> {
  const wanted = reference.trim();
  if (ENVIRONMENT_ID.test(wanted)) {
    try {
      return await store.get(wanted);
    } catch (error) {
      if (!(error instanceof SandpitError && error.code === 'NOT_FOUND')) throw error;
    }
  }
  const all = await store.list();
  const key = comparable(wanted);
  const byName = all.filter((e) => comparable(e.name) === key || e.id === key);
  if (byName.length === 1) return byName[0]!;
  const names = all.map((e) => `"${e.id}" (${e.name})`).join(', ');
  if (byName.length > 1) {
    // Only a data folder from before names had to be unique can hold two: the person can rename one (its id is under Details).
    throw new SandpitError('INVALID_INPUT', `More than one environment is called "${wanted}" (made before Sandpit refused a name in use): use its id, one of ${byName.map((e) => `"${e.id}"`).join(', ')}, or ask the person to rename one on the Environments screen (each one's id is under its Details).`);
  }
  throw new SandpitError('INVALID_INPUT', `There is no environment "${wanted}". The environments are: ${names}. See list_environments.`, {
    environments: all.map((e) => e.id),
  });
}

function comparable(name: string): string {
  return environmentNameKey(name);
}
