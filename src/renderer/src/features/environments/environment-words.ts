import type { EnvironmentBase, EnvironmentView } from '../../../../shared/domain/environment';
import { languageLabel } from '../../../../shared/domain/languages';

/** What each built-in environment is for, in one line a person can choose by. */
export const PRESET_BLURBS: Record<string, string> = {
  python: 'Plain Python, for general scripts and small calculations.',
  'python-data': 'Python with numpy, pandas and matplotlib, for tables, data and charts.',
  node: 'JavaScript (Node.js), for JavaScript code.',
  bash: 'A command line (Bash), for shell commands and everyday tools.',
  typescript: 'TypeScript on Node.js, for typed JavaScript code (the types are not checked).',
};

/** Packages a base image already has, so an environment on it needs no build for them. */
export const BASE_INCLUDES: Record<EnvironmentBase, readonly string[]> = {
  python: [],
  'python-data': ['numpy', 'pandas', 'matplotlib'],
  node: [],
};

export const BASE_WORDS: Record<EnvironmentBase, string> = {
  python: 'Python (small)',
  'python-data': 'Python for data (numpy, pandas, matplotlib included)',
  node: 'Node.js',
};

/** What an environment is for, as its maker said it: the preset's blurb, or its own description. */
export function environmentPurpose(env: Pick<EnvironmentView, 'id' | 'preset' | 'description'>): string | undefined {
  return (env.preset ? PRESET_BLURBS[env.id] : undefined) ?? env.description;
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
  const fromBase = BASE_INCLUDES[env.base];
  const own = all.filter((spec) => !fromBase.includes((/^[A-Za-z0-9._-]+/.exec(spec)?.[0] ?? spec).toLowerCase()));
  return own.length > 0 ? own : all;
}

/** Packages it comes with: the base's own and the ones added, without repeats. */
export function includedPackages(env: Pick<EnvironmentView, 'base' | 'packages'>): { fromBase: string[]; added: string[] } {
  const fromBase = [...BASE_INCLUDES[env.base]];
  const added = [...env.packages.pip, ...env.packages.npm, ...env.packages.apt].filter((p) => !fromBase.includes(p.toLowerCase()));
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
