import { SandpitError } from '../../shared/api/errors';
import type { PackageManager } from '../../shared/domain/runtimes';

export interface PackageSpec {
  /** What the user wrote (trimmed). */
  raw: string;
  /** The distribution name without extras or version (for checks). */
  name: string;
}

// PEP 508 names with optional extras and version specifiers; no URLs, markers, options or whitespace tricks.
const PIP_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const PIP_SPEC = /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(\[[A-Za-z0-9._-]+(?:,[A-Za-z0-9._-]+)*\])?((?:(?:===|==|!=|~=|>=|<=|>|<)[A-Za-z0-9.*+!_-]+)(?:,(?:===|==|!=|~=|>=|<=|>|<)[A-Za-z0-9.*+!_-]+)*)?$/;
// npm names (scoped or not) with an optional version or range after '@'.
const NPM_SPEC = /^((?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*)(?:@([A-Za-z0-9.^~<>=|*+ -]{1,64}))?$/;

/** Validates one package spec for an installer; throws INVALID_INPUT naming it and saying why. */
export function parsePackageSpec(input: string, manager: PackageManager): PackageSpec {
  const raw = input.trim();
  const refuse = (why: string): never => {
    throw new SandpitError('INVALID_INPUT', `"${input}" is not a valid ${manager} package: ${why}.`, { package: input });
  };
  if (raw.length === 0) refuse('it is empty');
  if (raw.length > 200) refuse('it is too long');
  if (raw.startsWith('-')) refuse('options are not allowed');
  if (manager === 'pip') {
    const compact = raw.replace(/\s*(===|==|!=|~=|>=|<=|>|<|,)\s*/g, '$1');
    if (/\s/.test(compact)) refuse('spaces are only allowed around version operators');
    const m = PIP_SPEC.exec(compact);
    if (!m?.[1] || !PIP_NAME.test(m[1])) refuse('use a name like "numpy" or "numpy==2.1.0"');
    return { raw: compact, name: m![1]! };
  }
  const m = NPM_SPEC.exec(raw);
  if (!m?.[1]) refuse('use a name like "lodash" or "lodash@4"');
  if (/[;&|`$(){}'"\\]/.test(raw)) refuse('it contains characters a package name cannot have');
  return { raw, name: m![1]! };
}

/** Validates every spec; the first bad one throws, before any process starts. */
export function parsePackageSpecs(inputs: string[], manager: PackageManager): PackageSpec[] {
  return inputs.map((p) => parsePackageSpec(p, manager));
}
