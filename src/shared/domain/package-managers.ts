/**
 * The package-manager registry, beside the language registry (languages.ts): what is pure data about each
 * manager — its id, what a person reads, its spec grammar and normaliser, how names compare, its notebook
 * cell, the setting that names its index, the words an installer uses for a package it cannot find. The
 * core's table (core/installers/package-manager-tools.ts) adds the install command and the Dockerfile lines.
 * An environment lists its packages per manager id (`Record<ManagerId, string[]>`).
 */

export const MANAGER_IDS = ['pip', 'npm', 'apt', 'cran'] as const;
export type ManagerId = (typeof MANAGER_IDS)[number];

/** A spec as a manager reads it: what is kept (normalised) and the name it is checked and compared by. */
export interface ParsedSpec {
  raw: string;
  name: string;
}

/** The settings (Settings → Packages, `config`, `egress` in settings.json) that name a manager's index. */
export const INDEX_SETTINGS = ['pipIndexUrl', 'npmRegistryUrl', 'cranRepositoryUrl'] as const;
export type IndexSetting = (typeof INDEX_SETTINGS)[number];

export interface IndexSettingEntry {
  /** The manager whose index it names. */
  manager: ManagerId;
  /** Where it points when the person set nothing, and the variable that overrides that at start-up. */
  default: string;
  envVar: string;
  /** What Settings → Packages shows above and below its field, and what the settings' schema says. */
  label: string;
  hint: string;
  description: string;
}

export const INDEX_SETTING_ENTRIES: { readonly [S in IndexSetting]: IndexSettingEntry } = {
  pipIndexUrl: {
    manager: 'pip',
    default: 'https://pypi.org/simple',
    envVar: 'SANDPIT_PIP_INDEX_URL',
    label: 'Python packages come from',
    hint: 'The address of a Python package index (pip). The usual one is https://pypi.org/simple.',
    description: 'PEP 503 index for pip (a private or offline mirror works)',
  },
  npmRegistryUrl: {
    manager: 'npm',
    default: 'https://registry.npmjs.org/',
    envVar: 'SANDPIT_NPM_REGISTRY_URL',
    label: 'JavaScript packages come from',
    hint: 'The address of an npm registry. The usual one is https://registry.npmjs.org/.',
    description: 'npm registry',
  },
  cranRepositoryUrl: {
    manager: 'cran',
    default: 'https://cloud.r-project.org/',
    envVar: 'SANDPIT_CRAN_URL',
    label: 'R packages come from',
    hint: 'The address of a CRAN repository or a mirror of one, for R packages installed into running sessions. The usual one is https://cloud.r-project.org/.',
    description: "CRAN-style repository for R packages installed into running sessions (environments' images get Debian's r-cran-* builds)",
  },
};

/** Every index URL of a configuration, settings or install settings object, keyed by its setting. */
export function indexUrlsOf(source: Readonly<Record<IndexSetting, string>>): Record<IndexSetting, string> {
  return Object.fromEntries(INDEX_SETTINGS.map((setting) => [setting, source[setting]])) as Record<IndexSetting, string>;
}

/** The index URL a manager reaches for, when it has a setting (apt: its base image's mirrors). */
export function indexUrlOf(manager: ManagerId, urls: Partial<Record<IndexSetting, string>>): string | undefined {
  const setting = PACKAGE_MANAGERS[manager].indexSetting;
  return setting === undefined ? undefined : urls[setting];
}

export interface PackageManagerEntry {
  id: ManagerId;
  /** What a person reads above its packages: "Python packages (pip)". */
  label: string;
  /** The form's hint and an example a person can type. */
  hint: string;
  example: string;
  /** "system": baked into the image for any language, before the language's own packages; "language": the packages of the languages that name it. */
  layer: 'system' | 'language';
  /** The index it downloads from, as a person calls it ("npm registry"). */
  indexName: string;
  /** The setting holding its index URL; none: the base image's own mirrors (apt). */
  indexSetting?: IndexSetting;
  /**
   * Hosts an image build reaches for it that no setting names: apt's are the Debian mirrors every base image's
   * sources list (the registry's Debian-based images and the bootstrapped ones alike). Builds only, never a session.
   */
  buildHosts?: readonly string[];
  /** Why `raw` (trimmed) is not a spec of this manager, or its normalised form and name. */
  parse(raw: string): ParsedSpec | { refused: string };
  /** How two names are compared for "listed twice". */
  compareKey(name: string): string;
  /**
   * Its command in a notebook cell; `magic`: IPython has a line magic of that name (`%pip install …`); `code`: its
   * own call in its language's kernel (R's `install.packages(…)`), used there instead of a shell cell.
   */
  notebook: { install: string; check: string; magic?: string; code?: { install(packages: readonly string[]): string; check(packages: readonly string[]): string } };
  /** What its installer prints for a package it cannot find (group 1: the name). */
  notFound: readonly RegExp[];
  /** What its installer prints when its index cannot be reached, besides the words every installer's network library uses. */
  unreachable?: readonly RegExp[];
}

// PEP 508 names with optional extras and version specifiers; no URLs, markers, options or whitespace tricks.
const PIP_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const PIP_SPEC = /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(\[[A-Za-z0-9._-]+(?:,[A-Za-z0-9._-]+)*\])?((?:(?:===|==|!=|~=|>=|<=|>|<)[A-Za-z0-9.*+!_-]+)(?:,(?:===|==|!=|~=|>=|<=|>|<)[A-Za-z0-9.*+!_-]+)*)?$/;
// npm names (scoped or not) with an optional version or range after '@'.
const NPM_SPEC = /^((?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*)(?:@([A-Za-z0-9.^~<>=|*+ -]{1,64}))?$/;
/** R package names (Writing R Extensions §1.1.1): letters, digits and dots, a letter first, not a dot last. */
const R_NAME = /^[A-Za-z][A-Za-z0-9.]*[A-Za-z0-9]$/;
/** Names as R string literals, in one `c(…)`. */
const rNames = (names: readonly string[]): string => (names.length === 1 ? JSON.stringify(names[0]) : `c(${names.map((n) => JSON.stringify(n)).join(', ')})`);
/** Debian package names (policy §5.6.1), at least two characters. */
export const APT_NAME = /^[a-z0-9][a-z0-9+.-]+$/;

export const PACKAGE_MANAGERS: { readonly [M in ManagerId]: PackageManagerEntry & { id: M } } = {
  pip: {
    id: 'pip',
    label: 'Python packages (pip)',
    hint: 'Type a name and press Enter, e.g. requests or numpy==2.1.0.',
    example: 'requests',
    layer: 'language',
    indexName: 'package index',
    indexSetting: 'pipIndexUrl',
    parse: (raw) => {
      const compact = raw.replace(/\s*(===|==|!=|~=|>=|<=|>|<|,)\s*/g, '$1');
      if (/\s/.test(compact)) return { refused: 'spaces are only allowed around version operators' };
      const m = PIP_SPEC.exec(compact);
      if (!m?.[1] || !PIP_NAME.test(m[1])) return { refused: 'use a name like "numpy" or "numpy==2.1.0"' };
      return { raw: compact, name: m[1] };
    },
    // PEP 503: case, "-", "_" and "." do not tell names apart.
    compareKey: (name) => name.toLowerCase().replace(/[-_.]+/g, '-'),
    notebook: { install: 'pip install', check: 'pip show', magic: 'pip' },
    notFound: [/No matching distribution found for ([A-Za-z0-9._-]+)/, /Could not find a version that satisfies the requirement ([A-Za-z0-9._-]+)/],
  },
  npm: {
    id: 'npm',
    label: 'JavaScript packages (npm)',
    hint: 'Type a name and press Enter, e.g. lodash or lodash@4.',
    example: 'lodash',
    layer: 'language',
    indexName: 'npm registry',
    indexSetting: 'npmRegistryUrl',
    parse: (raw) => {
      const m = NPM_SPEC.exec(raw);
      if (!m?.[1]) return { refused: 'use a name like "lodash" or "lodash@4"' };
      if (/[;&|`$(){}'"\\]/.test(raw)) return { refused: 'it contains characters a package name cannot have' };
      return { raw, name: m[1] };
    },
    compareKey: (name) => name,
    notebook: { install: 'npm install', check: 'npm ls' },
    notFound: [/404 Not Found - GET \S+\/(@?[a-z0-9._~%-]+(?:\/[a-z0-9._~-]+)?)(?:\/-\/|\s|$)/i],
  },
  apt: {
    id: 'apt',
    label: 'System packages (apt, optional)',
    hint: 'Debian packages baked into the image, e.g. jq or ffmpeg.',
    example: 'jq',
    layer: 'system',
    indexName: 'Debian package mirror',
    buildHosts: ['deb.debian.org', 'security.debian.org'],
    parse: (raw) => (APT_NAME.test(raw) && raw.length <= 100 ? { raw, name: raw } : { refused: 'apt package names are lowercase letters, digits and + . -' }),
    compareKey: (name) => name,
    notebook: { install: 'apt-get install', check: 'dpkg -s' },
    notFound: [/Unable to locate package ([a-z0-9+.-]+)/],
  },
  // R's packages: a running session installs them with install.packages() from the CRAN repository in Settings;
  // an environment's image gets Debian's build of each (r-cran-<name>), compiled already.
  cran: {
    id: 'cran',
    label: 'R packages (CRAN)',
    hint: 'Type a name and press Enter, e.g. ggplot2. An environment gets Debian’s ready-built r-cran-… package of it.',
    example: 'ggplot2',
    layer: 'language',
    indexName: 'CRAN repository',
    indexSetting: 'cranRepositoryUrl',
    parse: (raw) => (R_NAME.test(raw) && raw.length <= 100 ? { raw, name: raw } : { refused: 'use an R package name like "ggplot2" (letters, digits and dots, no version)' }),
    // CRAN refuses a name that differs from another only in case.
    compareKey: (name) => name.toLowerCase(),
    notebook: {
      install: 'install.packages',
      check: 'packageVersion',
      code: { install: (names) => `install.packages(${rNames(names)})`, check: (names) => names.map((n) => `packageVersion(${JSON.stringify(n)})`).join('\n') },
    },
    notFound: [/package [‘'"]([A-Za-z][A-Za-z0-9.]*)[’'"] is not available/, /Unable to locate package r-cran-([a-z0-9.]+)/],
    unreachable: [/unable to access index for repository/i, /Couldn't (?:connect to server|resolve host)/i],
  },
};

export function managerOf(id: ManagerId): PackageManagerEntry {
  return PACKAGE_MANAGERS[id];
}

/** The hosts an image build may reach besides the index settings' (apt's mirrors; R's r-cran-* builds come through apt). */
export const BUILD_HOSTS: readonly string[] = MANAGER_IDS.flatMap((id) => PACKAGE_MANAGERS[id].buildHosts ?? []);

/** Every manager with nothing listed: the packages of an environment that has none. */
export function noPackages(): Record<ManagerId, string[]> {
  return Object.fromEntries(MANAGER_IDS.map((id) => [id, []])) as unknown as Record<ManagerId, string[]>;
}

/** Every package of every manager, in the registry's order. */
export function allPackages(packages: Readonly<Record<ManagerId, readonly string[]>>): string[] {
  return MANAGER_IDS.flatMap((id) => packages[id]);
}

/** The managers in the order their packages go into an image: the system's first (libraries the others may build against). */
export const IMAGE_ORDER: readonly ManagerId[] = [...MANAGER_IDS.filter((id) => PACKAGE_MANAGERS[id].layer === 'system'), ...MANAGER_IDS.filter((id) => PACKAGE_MANAGERS[id].layer === 'language')];
