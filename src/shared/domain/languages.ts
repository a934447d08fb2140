/**
 * The language registry: one entry per language, read by everything that used to switch on the language —
 * the installers, run_file's choice of language, "save session as environment", the images, the
 * panel's labels. Adding a language means adding its id to LANGUAGES, its entry here, its image (a
 * flavour in FLAVOURS and executor-image/bases.json, a Dockerfile) and its agent; nothing else.
 */

import type { ManagerId } from './package-managers';

export const LANGUAGES = ['python', 'javascript', 'bash', 'typescript'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The language of a session, a run or a notebook that names none. */
export const DEFAULT_LANGUAGE: Language = 'python';

/** Executor image flavours (executor-image/bases.json): what an environment's base can be. */
export const FLAVOURS = ['python', 'python-data', 'node'] as const;
export type Flavour = (typeof FLAVOURS)[number];

/** The in-container agents (executor-image/agents/<agent>/). */
export type AgentName = 'python' | 'javascript';

/** The agent each image flavour carries: a language runs on a flavour only when its agent is that one. */
export const FLAVOUR_AGENTS: Record<Flavour, AgentName> = {
  python: 'python',
  'python-data': 'python',
  node: 'javascript',
};

/** The package managers whose packages a session installs at run time (the languages' own); the registry is package-managers.ts. */
export type PackageManager = ManagerId;

export interface LanguageEntry {
  id: Language;
  /** What a person reads: "Python", "JavaScript (Node.js)". */
  label: string;
  /** File extensions run_file runs in this language (lowercase, with the dot). */
  extensions: readonly string[];
  /** How packages are installed into its sessions at run time and in its environments. */
  packageManager: PackageManager;
  /** The image flavours its sessions can run on; the first is the default. */
  flavours: readonly Flavour[];
  /** The in-container agent that runs it: its flavours must carry this agent (FLAVOUR_AGENTS; checked by the registry's test). */
  agent: AgentName;
  /** The built-in environment a session of this language starts from when it names none. */
  defaultEnvironment: string;
  /**
   * The dialect its code is written in when the agent runs another one: the core translates it before it
   * reaches the agent (`typescript`: types removed in place, so every line and column stays where it was).
   */
  dialect?: 'typescript';
}

export const LANGUAGE_ENTRIES: { readonly [L in Language]: LanguageEntry & { id: L } } = {
  python: {
    id: 'python',
    label: 'Python',
    extensions: ['.py'],
    packageManager: 'pip',
    flavours: ['python', 'python-data'],
    agent: 'python',
    defaultEnvironment: 'python',
  },
  javascript: {
    id: 'javascript',
    label: 'JavaScript',
    extensions: ['.js', '.mjs', '.cjs'],
    packageManager: 'npm',
    flavours: ['node'],
    agent: 'javascript',
    defaultEnvironment: 'node',
  },
  // Bash runs on the python images: their agent runs each command in one-shot mode (SANDPIT_LANGUAGE=bash).
  // The node image's agent has no bash mode, so bash does not list it.
  bash: {
    id: 'bash',
    label: 'Bash',
    extensions: ['.sh', '.bash'],
    packageManager: 'pip',
    flavours: ['python', 'python-data'],
    agent: 'python',
    defaultEnvironment: 'bash',
  },
  // TypeScript runs on the JavaScript agent, stateful like it: the core removes the types first (Node's own stripper).
  typescript: {
    id: 'typescript',
    label: 'TypeScript',
    extensions: ['.ts', '.mts', '.cts'],
    packageManager: 'npm',
    flavours: ['node'],
    agent: 'javascript',
    defaultEnvironment: 'typescript',
    dialect: 'typescript',
  },
};

export function languageEntry(language: Language): LanguageEntry {
  return LANGUAGE_ENTRIES[language];
}

export function languageLabel(language: Language): string {
  return LANGUAGE_ENTRIES[language].label;
}

export function packageManagerOf(language: Language): PackageManager {
  return LANGUAGE_ENTRIES[language].packageManager;
}

export function defaultFlavourOf(language: Language): Flavour {
  return LANGUAGE_ENTRIES[language].flavours[0]!;
}

/** Whether sessions of a language can run on an image flavour: listed by the language, and carrying its agent. */
export function runsOn(language: Language, flavour: Flavour): boolean {
  const runtime = LANGUAGE_ENTRIES[language];
  return runtime.flavours.includes(flavour) && FLAVOUR_AGENTS[flavour] === runtime.agent;
}

/**
 * The language a workspace file runs in, by its extension; undefined for anything else (run_file
 * refuses it). The one place that decides, so the approval prompt, the audit row and the run agree.
 */
export function languageOfPath(path: string): Language | undefined {
  const lower = path.toLowerCase();
  return LANGUAGES.find((language) => LANGUAGE_ENTRIES[language].extensions.some((ext) => lower.endsWith(ext)));
}

/** The languages whose packages a manager installs (pip → python and bash). */
export function languagesOf(manager: ManagerId): Language[] {
  return LANGUAGES.filter((language) => LANGUAGE_ENTRIES[language].packageManager === manager);
}
