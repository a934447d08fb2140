import type { EnvironmentBase, EnvironmentView } from '../../../../shared/domain/environment';

/** What each built-in environment is for, in one line a person can choose by. */
export const PRESET_BLURBS: Record<string, string> = {
  python: 'Plain Python, for general scripts and small calculations.',
  'python-data': 'Python with numpy, pandas and matplotlib, for tables, data and charts.',
  node: 'JavaScript (Node.js), for JavaScript code.',
  bash: 'A command line (Bash), for shell commands and everyday tools.',
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

/** The line that says what an environment is for: the preset's blurb, else its own description. */
export function environmentBlurb(env: Pick<EnvironmentView, 'id' | 'preset' | 'description'>): string {
  return (env.preset ? PRESET_BLURBS[env.id] : undefined) ?? env.description ?? '';
}

/** Packages it comes with: the base's own and the ones added, without repeats. */
export function includedPackages(env: Pick<EnvironmentView, 'base' | 'packages'>): { fromBase: string[]; added: string[] } {
  const fromBase = [...BASE_INCLUDES[env.base]];
  const added = [...env.packages.pip, ...env.packages.npm, ...env.packages.apt].filter((p) => !fromBase.includes(p.toLowerCase()));
  return { fromBase, added };
}
