import type { ApprovalPolicy } from '../../../../shared/domain/approval';
import type { Isolation } from '../../../../shared/domain/isolation';
import type { PartialLimits } from '../../../../shared/domain/limits';
import type { SettingsPatch, SettingsView } from '../../../../shared/domain/settings';
import { INDEX_SETTINGS, indexUrlsOf } from '../../../../shared/domain/package-managers';
import type { IndexSetting } from '../../../../shared/domain/package-managers';

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/** Everything the Settings screen edits, as typed (numbers as text), saved together with one Save; each package index by its setting's name. */
export interface SettingsDraft extends Record<IndexSetting, string> {
  memoryMb: string;
  cpus: string;
  timeoutSeconds: string;
  workspaceMb: string;
  pids: string;
  pool: string;
  approvalDefault: ApprovalPolicy;
  perClient: Record<string, ApprovalPolicy>;
  approvalTimeout: string;
  askWritableFolders: boolean;
  askInChat: boolean;
  askSecretSessions: boolean;
  protectedFolders: string[];
  extraHosts: string[];
  /** '' = find Docker by itself. */
  dockerHost: string;
  port: string;
  retention: string;
  /** MiB all snapshots together may take. */
  snapshotStore: string;
  /** Longest background run, in minutes (issue 23). */
  backgroundMax: string;
  isolation: Isolation;
  idleMinutes: string;
  idleAction: 'stop' | 'pause';
  /** Kept in this browser, not in Sandpit's settings. */
  theme: Theme;
}
export type DraftField = keyof SettingsDraft;
export type FieldErrors = Partial<Record<DraftField, string>>;

const LIMIT_FIELDS = ['memoryMb', 'cpus', 'timeoutSeconds', 'workspaceMb', 'pids'] as const;

const text = (n: number | undefined): string => (n === undefined ? '' : String(n));

export function draftFromView(view: SettingsView, theme: Theme): SettingsDraft {
  const l = view.defaultLimits;
  return {
    memoryMb: text(l.memoryMb),
    cpus: text(l.cpus),
    timeoutSeconds: l.timeoutMs === undefined ? '' : String(l.timeoutMs / 1_000),
    workspaceMb: text(l.workspaceMb),
    pids: text(l.pids),
    pool: String(view.poolSize),
    approvalDefault: view.approvals.defaultPolicy,
    perClient: { ...view.approvals.perClient },
    approvalTimeout: String(view.approvals.timeoutSeconds),
    askWritableFolders: view.approvals.askWritableFolders === true,
    askInChat: view.approvals.askInChat !== false,
    askSecretSessions: view.approvals.askSecretSessions === true,
    protectedFolders: [...view.protectedFolders],
    ...indexUrlsOf(view.egress),
    extraHosts: [...view.egress.extraHosts],
    dockerHost: view.dockerHost ?? '',
    port: String(view.port),
    retention: String(view.auditRetentionDays),
    snapshotStore: String(view.snapshotStoreMb),
    backgroundMax: String(view.backgroundRunMaxMinutes ?? 60),
    isolation: view.defaultIsolation,
    idleMinutes: String(view.idleMinutes),
    idleAction: view.idleAction,
    theme,
  };
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The fields whose value differs from what is saved. */
export function changedFields(draft: SettingsDraft, base: SettingsDraft): DraftField[] {
  return (Object.keys(draft) as DraftField[]).filter((key) => !same(draft[key], base[key]));
}

/**
 * The saved settings changed meanwhile (another window, an assistant's effect): fields the person did
 * not touch take the new values, touched ones keep what was typed.
 */
export function rebase(draft: SettingsDraft, oldBase: SettingsDraft, newBase: SettingsDraft): SettingsDraft {
  const next = { ...newBase };
  for (const key of changedFields(draft, oldBase)) (next as Record<DraftField, unknown>)[key] = draft[key];
  return next;
}

function parseNumber(value: string): number | undefined {
  const t = value.trim();
  return t === '' ? undefined : Number(t);
}

const LIMIT_WORDS: Record<(typeof LIMIT_FIELDS)[number], { label: string; scale: number; key: keyof PartialLimits }> = {
  memoryMb: { label: 'Memory', scale: 1, key: 'memoryMb' },
  cpus: { label: 'Processor cores', scale: 1, key: 'cpus' },
  timeoutSeconds: { label: 'Time per run', scale: 1_000, key: 'timeoutMs' },
  workspaceMb: { label: 'Workspace size', scale: 1, key: 'workspaceMb' },
  pids: { label: 'Processes', scale: 1, key: 'pids' },
};

function wholeAtLeast(value: string, min: number): number | undefined {
  const n = parseNumber(value);
  return n !== undefined && Number.isInteger(n) && n >= min ? n : undefined;
}

/** The change to send for what differs from `base`, or what is wrong with the fields as typed. */
export function buildPatch(draft: SettingsDraft, base: SettingsDraft): { patch: SettingsPatch; errors: FieldErrors } {
  const changed = new Set(changedFields(draft, base));
  const patch: SettingsPatch = {};
  const errors: FieldErrors = {};
  if (LIMIT_FIELDS.some((f) => changed.has(f))) {
    const limits: PartialLimits = {};
    for (const field of LIMIT_FIELDS) {
      const n = parseNumber(draft[field]);
      if (n === undefined) continue;
      const { label, scale, key } = LIMIT_WORDS[field];
      if (!Number.isFinite(n) || n <= 0) errors[field] = `${label} must be a positive number (or empty for the default).`;
      else limits[key] = key === 'cpus' ? n : Math.round(n * scale);
    }
    patch.defaultLimits = limits;
  }
  if (changed.has('pool')) {
    const pool = wholeAtLeast(draft.pool, 0);
    if (pool === undefined) errors.pool = 'Ready sandboxes must be a whole number, 0 or more.';
    else patch.poolSize = pool;
  }
  if (changed.has('approvalDefault') || changed.has('perClient') || changed.has('approvalTimeout') || changed.has('askWritableFolders') || changed.has('askInChat') || changed.has('askSecretSessions')) {
    const approvals: NonNullable<SettingsPatch['approvals']> = {};
    if (changed.has('approvalDefault')) approvals.defaultPolicy = draft.approvalDefault;
    if (changed.has('askWritableFolders')) approvals.askWritableFolders = draft.askWritableFolders;
    if (changed.has('askInChat')) approvals.askInChat = draft.askInChat;
    if (changed.has('askSecretSessions')) approvals.askSecretSessions = draft.askSecretSessions;
    if (changed.has('approvalTimeout')) {
      const seconds = wholeAtLeast(draft.approvalTimeout, 10);
      if (seconds === undefined) errors.approvalTimeout = 'The waiting time must be a whole number of seconds, at least 10.';
      else approvals.timeoutSeconds = seconds;
    }
    if (changed.has('perClient')) {
      const removed = Object.keys(base.perClient).filter((name) => !(name in draft.perClient));
      approvals.perClient = { ...draft.perClient, ...Object.fromEntries(removed.map((name) => [name, null])) };
    }
    patch.approvals = approvals;
  }
  const indexes = INDEX_SETTINGS.filter((setting) => changed.has(setting));
  if (indexes.length > 0 || changed.has('extraHosts')) {
    patch.egress = {
      ...Object.fromEntries(indexes.map((setting) => [setting, draft[setting].trim()])),
      ...(changed.has('extraHosts') ? { extraHosts: draft.extraHosts } : {}),
    };
  }
  if (changed.has('dockerHost')) patch.dockerHost = draft.dockerHost.trim() === '' ? null : draft.dockerHost.trim();
  if (changed.has('port')) {
    const port = wholeAtLeast(draft.port, 1_024);
    if (port === undefined || port > 65_535) errors.port = 'The port must be a whole number from 1024 to 65535.';
    else patch.port = port;
  }
  if (changed.has('retention')) {
    const days = wholeAtLeast(draft.retention, 0);
    if (days === undefined) errors.retention = 'Keep runs for a whole number of days (0 = forever).';
    else patch.auditRetentionDays = days;
  }
  if (changed.has('snapshotStore')) {
    const mb = wholeAtLeast(draft.snapshotStore, 0);
    if (mb === undefined || mb > 16 * 1024 * 1024) errors.snapshotStore = 'Give the space for snapshots as a whole number of MiB (0 = no snapshots).';
    else patch.snapshotStoreMb = mb;
  }
  if (changed.has('backgroundMax')) {
    const minutes = wholeAtLeast(draft.backgroundMax, 1);
    if (minutes === undefined || minutes > 24 * 60) errors.backgroundMax = 'The longest background run must be a whole number of minutes, from 1 to 1440 (a day).';
    else patch.backgroundRunMaxMinutes = minutes;
  }
  if (changed.has('isolation')) patch.defaultIsolation = draft.isolation;
  if (changed.has('idleMinutes')) {
    const minutes = wholeAtLeast(draft.idleMinutes, 1);
    if (minutes === undefined || minutes > 24 * 60) errors.idleMinutes = 'Idle time must be a whole number of minutes, from 1 to 1440 (a day).';
    else patch.idleMinutes = minutes;
  }
  if (changed.has('idleAction')) patch.idleAction = draft.idleAction;
  if (changed.has('protectedFolders')) patch.protectedFolders = draft.protectedFolders;
  return { patch, errors };
}

/** Where the server's words for a refused field go (its paths look like `patch.egress.pipIndexUrl`). */
const SERVER_PATHS: [RegExp, DraftField][] = [
  [/^patch\.defaultLimits\.memoryMb/, 'memoryMb'],
  [/^patch\.defaultLimits\.cpus/, 'cpus'],
  [/^patch\.defaultLimits\.timeoutMs/, 'timeoutSeconds'],
  [/^patch\.defaultLimits\.workspaceMb/, 'workspaceMb'],
  [/^patch\.defaultLimits\.pids/, 'pids'],
  [/^patch\.poolSize/, 'pool'],
  [/^patch\.approvals\.defaultPolicy/, 'approvalDefault'],
  [/^patch\.approvals\.perClient/, 'perClient'],
  [/^patch\.approvals\.timeoutSeconds/, 'approvalTimeout'],
  ...INDEX_SETTINGS.map((setting): [RegExp, DraftField] => [new RegExp(`^patch\\.egress\\.${setting}`), setting]),
  [/^patch\.egress\.extraHosts/, 'extraHosts'],
  [/^patch\.dockerHost/, 'dockerHost'],
  [/^patch\.port/, 'port'],
  [/^patch\.auditRetentionDays/, 'retention'],
  [/^patch\.snapshotStoreMb/, 'snapshotStore'],
  [/^patch\.backgroundRunMaxMinutes/, 'backgroundMax'],
  [/^patch\.defaultIsolation/, 'isolation'],
  [/^patch\.idleMinutes/, 'idleMinutes'],
  [/^patch\.idleAction/, 'idleAction'],
  [/^patch\.protectedFolders/, 'protectedFolders'],
  [/^patch\.approvals\.askWritableFolders/, 'askWritableFolders'],
  [/^patch\.approvals\.askInChat/, 'askInChat'],
  [/^patch\.approvals\.askSecretSessions/, 'askSecretSessions'],
];

/**
 * The server's refusal as messages next to the fields it concerns (`field: message; field: message`), or,
 * when it names none, next to the Docker address when that was part of the change (the core tries a new
 * address before saving it), else as one message for the whole change.
 */
export function serverErrors(message: string, patch: SettingsPatch): { errors: FieldErrors; general?: string } {
  const errors: FieldErrors = {};
  for (const part of message.split(/; (?=patch\.)/)) {
    const match = /^(patch\.[\w.-]+): ([\s\S]*)$/.exec(part);
    const field = match ? SERVER_PATHS.find(([re]) => re.test(match[1]!))?.[1] : undefined;
    if (match && field) errors[field] = errors[field] ? `${errors[field]} ${match[2]!}` : match[2]!;
  }
  if (Object.keys(errors).length > 0) return { errors };
  if (patch.dockerHost !== undefined && /docker/i.test(message)) return { errors: { dockerHost: message } };
  return { errors, general: message };
}
