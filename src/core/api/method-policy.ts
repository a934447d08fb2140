import type { MethodName, MethodOutput, MethodParsedInput } from '../../shared/api/contract';
import type { ApprovalKind } from '../../shared/domain/approval';
import type { AuditedMethod } from '../../shared/domain/audit';
import type { Language } from '../../shared/domain/languages';
import { DEFAULT_LANGUAGE, languageLabel, languageOfPath } from '../../shared/domain/languages';
import { changeCode, changeFinish, checkFinish, commandFinish, executionFinish, installFinish, previewFinish, processStartFinish } from '../audit/audit-outcome';
import type { AuditFinish } from '../audit/audit-writer';

/** Written to the audit log: a `running` row before the call runs, completed before its result goes back. */
export interface AuditRule<M extends MethodName> {
  method: M & AuditedMethod;
  /** What the row shows as the code: the code, the command, one package per line, the file's path. */
  code(input: MethodParsedInput<M>): string;
  sessionId(input: MethodParsedInput<M>): string | undefined;
  /** The language of the default session the call uses when it names no session. */
  language(input: MethodParsedInput<M>): Language | undefined;
  /** The call is a run that announces itself by id (execution events): it gets an id before it starts. */
  execution: boolean;
  finish(result: MethodOutput<M>): AuditFinish;
  /** What the call starts goes on after it returns (a process): the row is completed when it ends (AuditDeps.completeLater). */
  later?: true;
}

/** Asked of the person first, under the caller's approval policy (never of the panel). */
export interface ApprovalRule<M extends MethodName> {
  kind: ApprovalKind;
  /** The session it would use (undefined: the caller's default one, or a new one). */
  sessionId(input: MethodParsedInput<M>): string | undefined;
  language(input: MethodParsedInput<M>): Language;
  /** What the person reads: the code, the command, the package list; `file` = the workspace file at `path`. */
  shows: ((input: MethodParsedInput<M>) => string | undefined) | 'file';
  /**
   * What the call would do, in plain words; `where` is "in session …" or "in a new … session" — for a
   * `create-session` rule, what the new session's environment opens ("; it can change … on this computer") or ''.
   */
  detail(input: MethodParsedInput<M>, where: string): string;
}

export interface MethodPolicy<M extends MethodName> {
  /** `any` caller, or the person in the `panel` only (the text says what a client tried, in plain words). */
  access: 'any' | { panel: string };
  /** A part of the input only the panel may pass, when the input has it (the text says what it does, in plain words). */
  panelInput?: { present(input: MethodParsedInput<M>): boolean; panel: string };
  audit?: AuditRule<M>;
  approval?: ApprovalRule<M>;
}

export type PolicyTable = { readonly [M in MethodName]: MethodPolicy<M> };

const ANY = { access: 'any' } as const;
const panel = (what: string): { access: { panel: string } } => ({ access: { panel: what } });

/**
 * Per method of the contract: who may call it, whether it is audited, whether it may need the person's
 * approval and of which kind. The one table; the compiler checks it names every method of the contract.
 */
export const METHOD_POLICY: PolicyTable = {
  'engine.status': ANY,
  'engine.candidates': panel('look for Docker engines'),
  'sessions.create': {
    access: 'any',
    // Only the person attaches secrets to a session (issue 18); an assistant's sessions get their environment's.
    panelInput: { present: (input) => (input.secrets?.length ?? 0) > 0, panel: 'attach secrets to a session' },
    approval: {
      kind: 'create-session',
      sessionId: () => undefined,
      language: (input) => input.language ?? DEFAULT_LANGUAGE,
      shows: (input) => (input.dependencies?.length ? input.dependencies.join('\n') : undefined),
      detail: (input, opens) => {
        const what = input.environment ? `session from the environment "${input.environment}"` : `${languageLabel(input.language ?? DEFAULT_LANGUAGE)} session`;
        const deps = input.dependencies?.length ? ` and install ${input.dependencies.join(', ')} from the package index` : '';
        return `Start a new ${what}${deps}${opens}`;
      },
    },
  },
  'sessions.list': ANY,
  'sessions.get': ANY,
  'sessions.stop': ANY,
  'sessions.restart': ANY,
  'sessions.setKept': ANY,
  // Only the person shares a folder of their computer: an assistant sees shared folders, never adds one.
  'sessions.addFolder': panel('share folders of this computer'),
  'sessions.removeFolder': panel('stop sharing folders of this computer'),
  'folders.pick': panel('open the folder picker'),
  // Review folders (issue 19): an assistant sees what is pending; only the person applies or discards, audited.
  'changes.list': ANY,
  'changes.diff': ANY,
  'changes.apply': {
    access: { panel: "apply changes to the person's files" },
    audit: {
      method: 'changes.apply',
      code: (input) => changeCode(input.mountPath, input.paths),
      sessionId: (input) => input.sessionId,
      language: () => undefined,
      execution: false,
      finish: (result) => changeFinish(result.outcomes),
    },
  },
  'changes.discard': {
    access: { panel: "discard changes to the person's files" },
    audit: {
      method: 'changes.discard',
      code: (input) => changeCode(input.mountPath, input.paths),
      sessionId: (input) => input.sessionId,
      language: () => undefined,
      execution: false,
      finish: (result) => changeFinish(result.outcomes),
    },
  },
  // Secrets (issue 18): only the person adds, changes or attaches a secret; an assistant sees names and hosts in environments.
  'secrets.list': panel('see the list of secrets'),
  'secrets.save': panel('add or change secrets'),
  'secrets.delete': panel('delete secrets'),
  'sessions.execute': {
    access: 'any',
    audit: {
      method: 'sessions.execute',
      code: (input) => input.code,
      sessionId: (input) => input.sessionId,
      language: (input) => input.language,
      execution: true,
      finish: executionFinish,
    },
    approval: {
      kind: 'execute',
      sessionId: (input) => input.sessionId,
      language: (input) => input.language ?? DEFAULT_LANGUAGE,
      shows: (input) => input.code,
      detail: (_input, where) => `Run code ${where}`,
    },
  },
  'sessions.stats': ANY,
  'egress.recent': ANY,
  'sessions.interrupt': ANY,
  'sessions.runCommand': {
    access: 'any',
    audit: {
      method: 'sessions.runCommand',
      code: (input) => input.command,
      sessionId: (input) => input.sessionId,
      language: () => undefined,
      execution: false,
      finish: commandFinish,
    },
    approval: {
      kind: 'run-command',
      sessionId: (input) => input.sessionId,
      language: () => DEFAULT_LANGUAGE,
      shows: (input) => input.command,
      detail: (_input, where) => `Run a shell command ${where}`,
    },
  },
  // Processes that keep running (issue 17): asked about like a command, audited from start to end.
  'processes.start': {
    access: 'any',
    audit: {
      method: 'processes.start',
      code: (input) => input.command,
      sessionId: (input) => input.sessionId,
      language: () => undefined,
      execution: false,
      finish: processStartFinish,
      later: true,
    },
    approval: {
      kind: 'run-command',
      sessionId: (input) => input.sessionId,
      language: () => DEFAULT_LANGUAGE,
      shows: (input) => input.command,
      detail: (_input, where) => `Start a shell command that keeps running ${where}`,
    },
  },
  'processes.list': ANY,
  // A preview runs no code of the sandbox's and gives it nothing new (no network): audited, who opened which.
  'previews.open': {
    access: 'any',
    audit: {
      method: 'previews.open',
      code: (input) => `port ${input.port}${input.path ? ` ${input.path}` : ''}`,
      sessionId: (input) => input.sessionId,
      language: () => undefined,
      execution: false,
      finish: previewFinish,
    },
  },
  'previews.list': ANY,
  'previews.stop': ANY,
  'previews.ports': ANY,
  'processes.output': ANY,
  'processes.stop': ANY,
  'sessions.runFile': {
    access: 'any',
    audit: {
      method: 'sessions.runFile',
      code: (input) => input.path,
      sessionId: (input) => input.sessionId,
      language: (input) => languageOfPath(input.path),
      execution: true,
      finish: executionFinish,
    },
    approval: {
      kind: 'run-file',
      sessionId: (input) => input.sessionId,
      language: (input) => languageOfPath(input.path) ?? DEFAULT_LANGUAGE,
      // The file as it is now: that is what the person approves, and what runs (not the file as it is later).
      shows: 'file',
      detail: (input, where) => `Run the file ${input.path} ${where}`,
    },
  },
  // Background runs (issue 23): runs.start calls sessions.execute / runCommand / runFile through this table, so each
  // run is asked about and audited by their rows (one row per run); these four only reach runs the caller owns.
  'runs.start': ANY,
  'runs.get': ANY,
  'runs.cancel': ANY,
  'runs.list': ANY,
  'packages.install': {
    access: 'any',
    audit: {
      method: 'packages.install',
      code: (input) => input.packages.join('\n'),
      sessionId: (input) => input.sessionId,
      language: () => undefined,
      execution: false,
      finish: (result) => installFinish(result.results),
    },
    approval: {
      kind: 'install',
      sessionId: (input) => input.sessionId,
      language: () => DEFAULT_LANGUAGE,
      shows: (input) => input.packages.join('\n'),
      detail: (input, where) => `Install ${input.packages.join(', ')} from the package index ${where}`,
    },
  },
  // A check starts a program in the session (Sandpit's own, isolated from the workspace): audited and asked like a run.
  'packages.check': {
    access: 'any',
    audit: {
      method: 'packages.check',
      code: (input) => input.packages.join('\n'),
      sessionId: (input) => input.sessionId,
      language: () => undefined,
      execution: false,
      finish: (result) => checkFinish(result.packages),
    },
    approval: {
      kind: 'check-packages',
      sessionId: (input) => input.sessionId,
      language: () => DEFAULT_LANGUAGE,
      shows: (input) => input.packages.join('\n'),
      detail: (input, where) => `Check whether ${input.packages.join(', ')} ${input.packages.length === 1 ? 'is' : 'are'} installed ${where}`,
    },
  },
  'files.write': ANY,
  'files.read': ANY,
  'files.list': ANY,
  'environments.list': ANY,
  'environments.get': ANY,
  'environments.create': panel('create environments'),
  'environments.update': panel('change environments'),
  'environments.copy': panel('copy environments'),
  'environments.remove': panel('delete environments'),
  'environments.import': panel('import environments'),
  'environments.build': panel('build environments'),
  'sessions.saveAsEnvironment': panel('save a session as an environment'),
  'snapshots.create': ANY,
  'snapshots.list': ANY,
  // An assistant deletes only its own snapshots (the handler checks); the panel any.
  'snapshots.delete': ANY,
  // Both make a new session: asked like create_session. A replay's runs go through sessions.execute's own rules.
  'snapshots.restore': {
    access: 'any',
    approval: {
      kind: 'create-session',
      sessionId: () => undefined,
      language: () => DEFAULT_LANGUAGE,
      shows: () => undefined,
      detail: (input) => `Start a new session from the snapshot "${input.snapshot}"${input.replay ? ' and run its recorded runs again' : ''}`,
    },
  },
  'sessions.fork': {
    access: 'any',
    approval: {
      kind: 'create-session',
      // The session it copies: one that is not the caller's is refused as missing before anyone is asked.
      sessionId: (input) => input.sessionId,
      language: () => DEFAULT_LANGUAGE,
      shows: () => undefined,
      detail: (input) => `Start a copy of ${input.sessionId ? `the session ${input.sessionId}` : 'its default session'} (same files and packages)${input.replay ? ' and run its runs again' : ''}`,
    },
  },
  'artifacts.list': ANY,
  'artifacts.read': ANY,
  'audit.list': ANY,
  'audit.get': ANY,
  'audit.verify': ANY,
  'audit.export': ANY,
  'audit.notebook': ANY,
  // Its runs go through the audited, approval-checked handlers one by one (each row's replay_of names the original).
  'audit.replay': panel('replay sessions'),
  'settings.get': ANY,
  'settings.update': panel('change the settings'),
  'approvals.list': panel('see approval requests'),
  'approvals.respond': panel('answer approval requests'),
  'approvals.sessionGrants': panel('see what was approved for a session'),
  'approvals.revokeSessionGrant': panel('take back an approval for a session'),
  'connect.info': ANY,
  'connect.revealToken': panel('see the access token'),
  'connect.rotateToken': panel('replace the access token'),
  'connect.panelLink': panel('see the panel link'),
  'connect.rotatePanelLink': panel('replace the panel link'),
  // An assistant must not rewrite (or even list) the configuration of the person's other assistants.
  'connect.assistants': panel('see which assistants are on this computer'),
  'connect.connectAssistant': panel("change an assistant's configuration"),
  'connect.disconnectAssistant': panel("change an assistant's configuration"),
};
