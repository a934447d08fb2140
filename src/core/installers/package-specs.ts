import { SandpitError } from '../../shared/api/errors';
import { PACKAGE_MANAGERS } from '../../shared/domain/package-managers';
import type { ManagerId } from '../../shared/domain/package-managers';

export interface PackageSpec {
  /** What the user wrote (trimmed). */
  raw: string;
  /** The distribution name without extras or version (for checks). */
  name: string;
}

/** Validates one package spec with its manager's grammar (package-managers.ts); throws INVALID_INPUT naming it and saying why. */
export function parsePackageSpec(input: string, manager: ManagerId): PackageSpec {
  const raw = input.trim();
  const refuse = (why: string): never => {
    throw new SandpitError('INVALID_INPUT', `"${input}" is not a valid ${manager} package: ${why}.`, { package: input });
  };
  if (raw.length === 0) refuse('it is empty');
  if (raw.length > 200) refuse('it is too long');
  if (raw.startsWith('-')) refuse('options are not allowed');
  const parsed = PACKAGE_MANAGERS[manager].parse(raw);
  if ('refused' in parsed) return refuse(parsed.refused);
  return parsed;
}

/** Validates every spec; the first bad one throws, before any process starts. */
export function parsePackageSpecs(inputs: string[], manager: ManagerId): PackageSpec[] {
  return inputs.map((p) => parsePackageSpec(p, manager));
}
