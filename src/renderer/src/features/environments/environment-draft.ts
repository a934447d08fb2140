import type { MethodInput } from '../../../../shared/api/contract';
import { BASES_BY_LANGUAGE, defaultBaseFor } from '../../../../shared/domain/environment';
import type {
  Environment,
  EnvironmentBase,
  EnvironmentPatch,
  NetworkPolicy,
} from '../../../../shared/domain/environment';
import type { Isolation } from '../../../../shared/domain/isolation';
import type { PartialLimits } from '../../../../shared/domain/limits';
import { DEFAULT_LANGUAGE, packageManagerOf } from '../../../../shared/domain/languages';
import type { Language, PackageManager } from '../../../../shared/domain/languages';
import type { FolderMode } from '../../../../shared/domain/shared-folder';
import { MANAGER_IDS, PACKAGE_MANAGERS, noPackages } from '../../../../shared/domain/package-managers';
import type { ManagerId } from '../../../../shared/domain/package-managers';

/** A folder of this computer every session of the environment gets. */
export interface FolderDraft {
  hostPath: string;
  mode: FolderMode;
  mountPath?: string;
}

/** A package manager of the registry, as the form's chip fields are keyed. */
export type Installer = ManagerId;

/** What the environment form edits: lists as chips (one per manager of the registry), limits as the text typed. */
export interface EnvironmentDraft extends Record<ManagerId, string[]> {
  name: string;
  description: string;
  language: Language;
  base: EnvironmentBase;
  network: NetworkPolicy;
  /** With "packages": more hosts its sessions may reach (what "Allow" in Network activity adds). */
  allowedHosts: string[];
  /** '' = as the Settings default. */
  isolation: Isolation | '';
  /** Limits as typed; '' = the default. */
  memoryMb: string;
  cpus: string;
  timeoutSeconds: string;
  workspaceMb: string;
  folders: FolderDraft[];
}

export function emptyDraft(language: Language = DEFAULT_LANGUAGE): EnvironmentDraft {
  return {
    name: '',
    description: '',
    language,
    base: defaultBaseFor(language),
    ...noPackages(),
    network: 'none',
    allowedHosts: [],
    isolation: '',
    memoryMb: '',
    cpus: '',
    timeoutSeconds: '',
    workspaceMb: '',
    folders: [],
  };
}

const text = (value: number | undefined): string => (value === undefined ? '' : String(value));

export function draftFrom(env: Environment): EnvironmentDraft {
  return {
    name: env.name,
    description: env.description ?? '',
    language: env.language,
    base: env.base,
    ...(Object.fromEntries(MANAGER_IDS.map((m) => [m, [...env.packages[m]]])) as Record<ManagerId, string[]>),
    network: env.network,
    allowedHosts: [...env.allowedHosts],
    isolation: env.isolation ?? '',
    memoryMb: text(env.limits.memoryMb),
    cpus: text(env.limits.cpus),
    timeoutSeconds: env.limits.timeoutMs === undefined ? '' : String(env.limits.timeoutMs / 1_000),
    workspaceMb: text(env.limits.workspaceMb),
    folders: (env.folders ?? []).map((f) => ({ hostPath: f.hostPath, mode: f.mode, ...(f.mountPath ? { mountPath: f.mountPath } : {}) })),
  };
}

function foldersOf(draft: EnvironmentDraft): FolderDraft[] {
  return draft.folders.map((f) => ({ hostPath: f.hostPath.trim(), mode: f.mode, ...(f.mountPath?.trim() ? { mountPath: f.mountPath.trim() } : {}) }));
}

/** The language-specific installer the form shows (the language registry's: pip for python and bash, npm for javascript). */
export function installerFor(language: Language): PackageManager {
  return packageManagerOf(language);
}

/** Changing the language keeps the base when it still fits, else takes the language's default. */
export function withLanguage(draft: EnvironmentDraft, language: Language): EnvironmentDraft {
  const base = BASES_BY_LANGUAGE[language].includes(draft.base) ? draft.base : defaultBaseFor(language);
  return { ...draft, language, base };
}

function numberOrUndefined(value: string): number | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : Number.NaN;
}

/** The limits typed, or the name of the first field that is not a number. */
export function draftLimits(draft: EnvironmentDraft): PartialLimits | { invalid: string } {
  const memoryMb = numberOrUndefined(draft.memoryMb);
  const cpus = numberOrUndefined(draft.cpus);
  const timeout = numberOrUndefined(draft.timeoutSeconds);
  const workspaceMb = numberOrUndefined(draft.workspaceMb);
  for (const [label, value] of [
    ['Memory', memoryMb],
    ['Processor cores', cpus],
    ['Time per run', timeout],
    ['Workspace size', workspaceMb],
  ] as const) {
    if (value !== undefined && (Number.isNaN(value) || value <= 0))
      return { invalid: `${label} must be a positive number.` };
  }
  const limits: PartialLimits = {};
  if (memoryMb !== undefined) limits.memoryMb = Math.round(memoryMb);
  if (cpus !== undefined) limits.cpus = cpus;
  if (timeout !== undefined) limits.timeoutMs = Math.round(timeout * 1_000);
  if (workspaceMb !== undefined) limits.workspaceMb = Math.round(workspaceMb);
  return limits;
}

/** The system's managers (apt): the form shows their chips for every language. */
export const SYSTEM_INSTALLERS: readonly ManagerId[] = MANAGER_IDS.filter((m) => PACKAGE_MANAGERS[m].layer === 'system');

/** The packages the form sends: the language's own manager's and the system's; any other list is left empty. */
function draftPackages(draft: EnvironmentDraft): Record<ManagerId, string[]> {
  const installer = installerFor(draft.language);
  return Object.fromEntries(MANAGER_IDS.map((m) => [m, m === installer || SYSTEM_INSTALLERS.includes(m) ? draft[m] : []])) as Record<ManagerId, string[]>;
}

/** The input of environments.create; only the installer that fits the language is sent. */
export function toCreateInput(draft: EnvironmentDraft, limits: PartialLimits): MethodInput<'environments.create'> {
  return {
    name: draft.name.trim(),
    language: draft.language,
    base: draft.base,
    packages: draftPackages(draft),
    network: draft.network,
    ...(draft.allowedHosts.length ? { allowedHosts: draft.allowedHosts } : {}),
    limits,
    ...(draft.isolation ? { isolation: draft.isolation } : {}),
    ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
    ...(draft.folders.length ? { folders: foldersOf(draft) } : {}),
  };
}

export function toPatch(draft: EnvironmentDraft, limits: PartialLimits): EnvironmentPatch {
  const { packages: _packages, isolation: _isolation, folders: _folders, ...rest } = toCreateInput(draft, limits);
  return {
    ...rest,
    folders: foldersOf(draft),
    allowedHosts: draft.allowedHosts,
    isolation: draft.isolation === '' ? null : draft.isolation,
    packages: draftPackages(draft),
    description: draft.description.trim(),
  };
}

/**
 * Which chip an INVALID_INPUT error is about: the server names the package in `details.package`,
 * or a schema path like "packages.apt.2" in the message.
 */
export function invalidChip(
  draft: Pick<EnvironmentDraft, Installer>,
  message: string,
  details: unknown,
): { installer: Installer; value: string } | undefined {
  const named =
    typeof details === 'object' && details !== null && typeof (details as { package?: unknown }).package === 'string'
      ? (details as { package: string }).package
      : undefined;
  if (named !== undefined) {
    for (const installer of MANAGER_IDS) {
      const value = draft[installer].find((chip) => chip === named || chip.trim() === named.trim());
      if (value !== undefined) return { installer, value };
    }
  }
  const path = new RegExp(`packages\\.(${MANAGER_IDS.join('|')})\\.(\\d+)`).exec(message);
  if (path) {
    const installer = path[1] as Installer;
    const value = draft[installer][Number(path[2])];
    if (value !== undefined) return { installer, value };
  }
  return undefined;
}
