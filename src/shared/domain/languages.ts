/**
 * The language registry: one entry per language (and one per image flavour), read by everything that used to
 * switch on the language — the installers, run_file's choice of language, "save session as environment", the
 * built-in environments, the notebook's kernel, the images, the panel's labels, greetings and blurbs. Adding a
 * language means adding its id to LANGUAGES, its entry here, its image (a flavour in FLAVOURS and
 * executor-image/bases.json, a Dockerfile) and its agent; nothing else.
 */

import type { ManagerId } from './package-managers';

export const LANGUAGES = ['python', 'javascript', 'bash', 'typescript', 'r'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The language of a session, a run or a notebook that names none. */
export const DEFAULT_LANGUAGE: Language = 'python';

/** Executor image flavours (executor-image/bases.json): what an environment's base can be. */
export const FLAVOURS = ['python', 'python-data', 'node', 'r'] as const;
export type Flavour = (typeof FLAVOURS)[number];

/** The in-container agents (executor-image/agents/<agent>/). */
export type AgentName = 'python' | 'javascript' | 'r';

export interface FlavourEntry {
  /** The agent its image carries: a language runs on a flavour only when its agent is that one. */
  agent: AgentName;
  /** What a person reads for it under "Starting point". */
  words: string;
  /** Packages its base image already has, so an environment on it needs no build for them (as their makers write them; compared in any case). */
  includes: readonly string[];
  /**
   * A built-in environment of its own, besides its language's (Python (data)): its id, language, name and
   * blurb; its description depends on where the base comes from (a registry image, or Debian's packages).
   */
  preset?: { id: string; language: Language; name: string; blurb: string; description: { registry: string; bootstrap: string } };
}

export const FLAVOUR_ENTRIES: { readonly [F in Flavour]: FlavourEntry } = {
  python: { agent: 'python', words: 'Python (small)', includes: [] },
  'python-data': {
    agent: 'python',
    words: 'Python for data (numpy, pandas, matplotlib included)',
    includes: ['numpy', 'pandas', 'matplotlib'],
    preset: {
      id: 'python-data',
      language: 'python',
      name: 'Python (data)',
      blurb: 'Python with numpy, pandas and matplotlib, for tables, data and charts.',
      description: {
        bootstrap: 'Python 3 with numpy, pandas and matplotlib from Debian packages in the base image (no package index needed).',
        registry: 'Python 3 with numpy, pandas and matplotlib, installed with pip when the image is built.',
      },
    },
  },
  node: { agent: 'javascript', words: 'Node.js', includes: [] },
  // Debian's r-base-core and r-recommended: R's recommended packages come with it.
  r: {
    agent: 'r',
    words: 'R (its recommended packages included)',
    includes: ['boot', 'class', 'cluster', 'codetools', 'foreign', 'KernSmooth', 'lattice', 'MASS', 'Matrix', 'mgcv', 'nlme', 'nnet', 'rpart', 'spatial', 'survival'],
  },
};

/** The agent each image flavour carries (FLAVOUR_ENTRIES). */
export const FLAVOUR_AGENTS: Record<Flavour, AgentName> = Object.fromEntries(FLAVOURS.map((f) => [f, FLAVOUR_ENTRIES[f].agent])) as Record<Flavour, AgentName>;

/** The notebook's `kernelspec` and `language_info` for a language (what JupyterLab opens it with). */
export interface NotebookKernel {
  kernelspec: { name: string; display_name: string; language: string };
  /**
   * What a cell of its kernel runs: IPython (line magics such as `%pip`, `%%bash` cells), a shell, or only its
   * own code; `shell` writes a shell command as a cell of its own code (else a `%%bash` cell).
   */
  cells: 'ipython' | 'shell' | 'plain';
  shell?: (command: string, background: boolean) => string;
  language_info: { name: string; file_extension: string; mimetype: string; codemirror_mode?: string | { name: string; version: number }; pygments_lexer?: string; nbconvert_exporter?: string };
}

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
  /** The built-in environment a session of this language starts from when it names none (its base: the first flavour). */
  defaultEnvironment: string;
  /** That built-in environment as a person reads it: its name, its description, and the one line New session shows. */
  preset: { name: string; description: string; blurb: string };
  /** What the panel's "Run code" box shows before anything is typed. */
  greeting: string;
  /** The Jupyter kernel people have for it: an exported notebook opens with it. */
  notebook: NotebookKernel;
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
    preset: { name: 'Python', description: 'Python 3 with the standard library only.', blurb: 'Plain Python, for general scripts and small calculations.' },
    greeting: 'print("Hello from the sandbox")',
    // ipykernel's
    notebook: {
      kernelspec: { name: 'python3', display_name: 'Python 3 (ipykernel)', language: 'python' },
      cells: 'ipython',
      language_info: { name: 'python', file_extension: '.py', mimetype: 'text/x-python', codemirror_mode: { name: 'ipython', version: 3 }, pygments_lexer: 'ipython3', nbconvert_exporter: 'python' },
    },
  },
  javascript: {
    id: 'javascript',
    label: 'JavaScript',
    extensions: ['.js', '.mjs', '.cjs'],
    packageManager: 'npm',
    flavours: ['node'],
    agent: 'javascript',
    defaultEnvironment: 'node',
    preset: { name: 'Node.js', description: 'Node.js with its built-in modules only.', blurb: 'JavaScript (Node.js), for JavaScript code.' },
    greeting: 'console.log("Hello from the sandbox")',
    // IJavascript's
    notebook: {
      kernelspec: { name: 'javascript', display_name: 'JavaScript (Node.js)', language: 'javascript' },
      cells: 'plain',
      language_info: { name: 'javascript', file_extension: '.js', mimetype: 'application/javascript', codemirror_mode: 'javascript' },
    },
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
    preset: { name: 'Bash', description: 'A Bash shell with the usual command-line tools (and Python 3).', blurb: 'A command line (Bash), for shell commands and everyday tools.' },
    greeting: 'echo "Hello from the sandbox"',
    // bash_kernel's
    notebook: {
      kernelspec: { name: 'bash', display_name: 'Bash', language: 'bash' },
      cells: 'shell',
      language_info: { name: 'bash', file_extension: '.sh', mimetype: 'text/x-sh', codemirror_mode: 'shell', pygments_lexer: 'bash' },
    },
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
    preset: {
      name: 'TypeScript',
      description: 'TypeScript on Node.js (types are removed before it runs; they are not checked).',
      blurb: 'TypeScript on Node.js, for typed JavaScript code (the types are not checked).',
    },
    greeting: 'const where: string = "the sandbox";\nconsole.log(`Hello from ${where}`)',
    // tslab's
    notebook: {
      kernelspec: { name: 'tslab', display_name: 'TypeScript', language: 'typescript' },
      cells: 'plain',
      language_info: { name: 'typescript', file_extension: '.ts', mimetype: 'text/typescript', codemirror_mode: 'text/typescript' },
    },
  },
  // R on its own agent (a Perl supervisor and the R kernel); plots from the default device come back as pictures.
  r: {
    id: 'r',
    label: 'R',
    extensions: ['.r'],
    packageManager: 'cran',
    flavours: ['r'],
    agent: 'r',
    defaultEnvironment: 'r',
    preset: {
      name: 'R',
      description: 'R with its recommended packages (MASS, lattice, Matrix, survival …); plots come back as pictures.',
      blurb: 'R, for statistics, data and plots.',
    },
    greeting: 'x <- c(2, 4, 9)\nsummary(x)',
    // IRkernel's
    notebook: {
      kernelspec: { name: 'ir', display_name: 'R', language: 'R' },
      cells: 'plain',
      shell: (command, background) => `system(${rString(command)}${background ? ', wait = FALSE' : ''})`,
      language_info: { name: 'R', file_extension: '.r', mimetype: 'text/x-r-source', codemirror_mode: 'r', pygments_lexer: 'r' },
    },
  },
};

/** Text as an R string literal (JSON's escapes are R's too). */
function rString(text: string): string {
  return JSON.stringify(text);
}

export function languageEntry(language: Language): LanguageEntry {
  return LANGUAGE_ENTRIES[language];
}

export function languageLabel(language: Language): string {
  return LANGUAGE_ENTRIES[language].label;
}

/** A label with its article, as a person says it: "a Python", "an R". */
export function withArticle(label: string): string {
  return `${/^([AEIOU]|[FHLMNRSX](?![a-z]))/.test(label) ? 'an' : 'a'} ${label}`;
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

/**
 * The built-in environments' ids in the order a person sees them: each language's own, followed by the
 * flavours' own presets of that language (python, python-data, node, …).
 */
export const PRESET_IDS: readonly string[] = [
  ...new Set(
    LANGUAGES.flatMap((language) => [
      LANGUAGE_ENTRIES[language].defaultEnvironment,
      ...FLAVOURS.flatMap((flavour) => {
        const preset = FLAVOUR_ENTRIES[flavour].preset;
        return preset?.language === language ? [preset.id] : [];
      }),
    ]),
  ),
];

/** The one line New session shows for a built-in environment, or undefined for any other id. */
export function presetBlurb(id: string): string | undefined {
  const language = LANGUAGES.find((l) => LANGUAGE_ENTRIES[l].defaultEnvironment === id);
  if (language) return LANGUAGE_ENTRIES[language].preset.blurb;
  return FLAVOURS.map((f) => FLAVOUR_ENTRIES[f].preset).find((p) => p?.id === id)?.blurb;
}
