import type { EnvironmentBase, EnvironmentView } from '../../../../shared/domain/environment';
import { FLAVOURS, FLAVOUR_ENTRIES, languageLabel, presetBlurb } from '../../../../shared/domain/languages';
import { allPackages } from '../../../../shared/domain/package-managers';

/** Packages a base image already has, so an environment on it needs no build for them (the flavour registry's). */
export const BASE_INCLUDES: Record<EnvironmentBase, readonly string[]> = Object.fromEntries(FLAVOURS.map((f) => [f, FLAVOUR_ENTRIES[f].includes])) as Record<EnvironmentBase, readonly string[]>;

/** What a person reads for each base under "Starting point" (the flavour registry's). */
export const BASE_WORDS: Record<EnvironmentBase, string> = Object.fromEntries(FLAVOURS.map((f) => [f, FLAVOUR_ENTRIES[f].words])) as Record<EnvironmentBase, string>;

/** What an environment is for, as its maker said it: the preset's blurb, or its own description. */
export function environmentPurpose(env: Pick<EnvironmentView, 'id' | 'preset' | 'description'>): string | undefined {
  return (env.preset ? presetBlurb(env.id) : undefined) ?? env.description;
}

/** The line that says what an environment is for: the preset's blurb, else its own description, else what it holds. */
export function environmentBlurb(env: Pick<EnvironmentView, 'id' | 'preset' | 'description' | 'language' | 'base' | 'packages'>): string {
  const own = environmentPurpose(env);
  if (own) return own;
  const { fromBase, added } = includedPackages(env);
  const all = [...fromBase, ...added];
  return all.length > 0 ? `${languageLabel(env.language)} with ${all.join(', ')}.` : `${languageLabel(env.language)}, no packages added.`;
}

/**
 * The packages a failed build names as affected, without those its base already comes with (the installer
 * lists every package of the command that failed: "pandas, matplotlib, pandsa" when only pandsa is wrong).
 * All of them when every one comes with the base (then the base's own may be the problem).
 */
export function affectedPackages(env: Pick<EnvironmentView, 'base' | 'build'>): string[] {
  const build = env.build;
  if (!build || build.state !== 'failed') return [];
  const all = build.diagnosis?.affected ?? (build.failedPackage ? [build.failedPackage] : []);
  const fromBase = BASE_INCLUDES[env.base].map((name) => name.toLowerCase());
  const own = all.filter((spec) => !fromBase.includes((/^[A-Za-z0-9._-]+/.exec(spec)?.[0] ?? spec).toLowerCase()));
  return own.length > 0 ? own : all;
}

/** Packages it comes with: the base's own and the ones added, without repeats. */
export function includedPackages(env: Pick<EnvironmentView, 'base' | 'packages'>): { fromBase: string[]; added: string[] } {
  const fromBase = [...BASE_INCLUDES[env.base]];
  const lower = fromBase.map((name) => name.toLowerCase());
  const added = allPackages(env.packages).filter((p) => !lower.includes(p.toLowerCase()));
  return { fromBase, added };
}

/**
 * Whether sessions can start from it now. The status says so, except in the view sent as a build ends
 * (still "building" there): the build record then says how it ended.
 */
export function environmentState(env: Pick<EnvironmentView, 'status' | 'build'>): EnvironmentView['status']['state'] {
  if (env.status.state !== 'building') return env.status.state;
  if (env.build?.state === 'failed') return 'failed';
  if (env.build?.state === 'ready') return 'ready';
  return 'building';
}
