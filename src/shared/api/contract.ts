import { secretInfoSchema, secretNameSchema, secretSaveInputSchema } from '../domain/secret';
import { z } from 'zod';
import { artifactSchema, fileEntrySchema } from '../domain/artifact';
import {
  auditEntrySchema,
  auditExportFormatSchema,
  auditFiltersSchema,
  auditIdSchema,
  auditNotebookSchema,
  auditSummarySchema,
  auditVerifyResultSchema,
} from '../domain/audit';
import { displaySchema, executionDoneSchema, executionResultSchema, streamNameSchema } from '../domain/execution';
import { partialLimitsSchema } from '../domain/limits';
import { replayViewSchema } from '../domain/replay';
import {
  environmentDefinitionInputSchema,
  environmentIdSchema,
  environmentPatchSchema,
  environmentViewSchema,
  importedDependenciesSchema,
} from '../domain/environment';
import { approvalDecisionSchema, approvalOutcomeSchema, approvalSchema, sessionGrantSchema } from '../domain/approval';
import { connectedClientSchema, connectInfoSchema } from '../domain/connect';
import { assistantChangeSchema, assistantIdSchema, assistantStatusSchema } from '../domain/assistants';
import { commandResultSchema, packageOutcomeSchema, packageSpecSchema } from '../domain/packages';
import { languageSchema, sessionInfoSchema, sessionStatsSchema } from '../domain/session';
import { settingsPatchSchema, settingsViewSchema } from '../domain/settings';
import { restoredSessionSchema, snapshotIdSchema, snapshotSchema } from '../domain/snapshot';
import { shareFolderInputSchema } from '../domain/shared-folder';
import { backgroundRunSchema, runAnswerSchema, runIdSchema } from '../domain/background-run';
import { changeDiffSchema, changeOutcomeSchema, changeSelectionSchema, folderChangesSchema } from '../domain/folder-changes';
import { processIdSchema, processInfoSchema, processOutputInputSchema, processOutputSchema, startProcessInputSchema } from '../domain/process';
import { listeningPortSchema, openPreviewInputSchema, previewIdSchema, previewInfoSchema } from '../domain/preview';
import { engineCandidateSchema, engineStatusSchema } from '../domain/engine';
import { egressEntrySchema } from '../domain/egress';

/**
 * The one declaration of every method and event Sandpit offers. IPC, HTTP (/api), REST and MCP all
 * map onto these schemas; types are inferred from them. Every method takes one input object.
 */

const sessionIdSchema = z.string().min(1).max(64).describe('Session id');
const optionalSessionIdSchema = sessionIdSchema.optional().describe("Session id; default: the caller's own default session (created on first use)");
const executionIdSchema = z
  .string()
  .regex(/^run-[a-z0-9]{8,40}$/)
  .optional()
  .describe("Id for this run, chosen by the caller so it can follow the run's live events (MCP progress, cancel); default: a fresh one");

export const methods = {
  'engine.status': {
    input: z.object({}),
    output: engineStatusSchema,
  },
  'engine.candidates': {
    input: z.object({}),
    output: z.object({ engines: z.array(engineCandidateSchema) }),
  },
  'sessions.create': {
    input: z.object({
      language: languageSchema.optional().describe("Language of the session (default: the environment's, else python)"),
      environment: z
        .string()
        .trim()
        .min(1)
        .max(128)
        .optional()
        .describe("Environment to start from, by id or by the name a person gave it (its image, packages, limits and network policy); default: the language's built-in one"),
      name: z.string().trim().min(1).max(64).regex(/^[^\p{Cc}]*$/u, 'a name cannot contain control characters').optional().describe('A name to show for the session (default: the environment\'s name and a number)'),
      limits: partialLimitsSchema.optional().describe('Overrides of the default limits'),
      dependencies: z.array(packageSpecSchema).max(100).optional().describe('Packages installed before the session is handed out'),
      idleTimeoutMinutes: z.number().int().min(1).max(24 * 60).optional().describe('Stop the session after this many idle minutes'),
      client: z.string().max(128).optional().describe('Name of the client that asked for it'),
      keep: z.boolean().optional().describe('Keep it across a restart of Sandpit: files and installed packages stay, variables do not (default false)'),
      secrets: z
        .array(secretNameSchema)
        .max(20)
        .optional()
        .describe("Secrets of Settings → Secrets this session may use besides its environment's, by name (network \"packages\" only). Only the person passes them, in the Sandpit panel: any other caller is refused"),
    }),
    output: sessionInfoSchema,
  },
  'sessions.setKept': {
    input: z.object({ sessionId: sessionIdSchema, keep: z.boolean().describe('true: keep it across a restart of Sandpit; false: it ends when Sandpit quits') }),
    output: sessionInfoSchema,
  },
  'sessions.list': {
    input: z.object({}),
    output: z.object({ sessions: z.array(sessionInfoSchema) }),
  },
  'sessions.get': {
    input: z.object({ sessionId: sessionIdSchema }),
    output: sessionInfoSchema,
  },
  'sessions.stop': {
    input: z.object({
      sessionId: sessionIdSchema,
      ifIdle: z.boolean().optional().describe('Only if nothing runs or waits on it now; else it stays (stopped: false)'),
    }),
    output: z.object({ sessionId: z.string(), stopped: z.boolean() }),
  },
  'sessions.restart': {
    input: z.object({ sessionId: sessionIdSchema }),
    output: sessionInfoSchema,
  },
  'sessions.addFolder': {
    input: z.object({ sessionId: sessionIdSchema, folder: shareFolderInputSchema }),
    output: sessionInfoSchema.describe('The session with the folder: its sandbox started again (variables lost, /workspace kept)'),
  },
  'sessions.removeFolder': {
    input: z.object({ sessionId: sessionIdSchema, mountPath: z.string().min(1).max(1024).describe('Where the folder appears in the sandbox') }),
    output: sessionInfoSchema.describe('The session without the folder: its sandbox started again (variables lost, /workspace kept)'),
  },
  'folders.pick': {
    input: z.object({}),
    output: z.object({ hostPath: z.string().optional().describe('The folder the person picked; absent when they cancelled') }),
  },
  // Review folders ("Changes need my OK", issue 19): what is pending, its diff, and (panel only) apply / discard.
  'changes.list': {
    input: z.object({
      sessionId: sessionIdSchema.optional().describe('The session (default: every session you may use)'),
      diffLines: z.number().int().min(0).max(400).optional().describe('A unified diff per text file, cut at this many lines (default 0: none)'),
    }),
    output: z.object({ folders: z.array(folderChangesSchema) }),
  },
  'changes.diff': {
    input: z.object({ sessionId: sessionIdSchema, mountPath: z.string().min(1).max(1024), path: z.string().min(1).max(4096) }),
    output: changeDiffSchema,
  },
  'changes.apply': {
    input: changeSelectionSchema.extend({
      confirmDelete: z.boolean().optional().describe('Delete for good the deleted files no trash can take (the panel asks first)'),
      expect: z.record(z.string(), z.string().nullable()).optional().describe('The content reviewed, per path (sha256; null for a deletion): anything else is refused'),
    }),
    output: z.object({ outcomes: z.array(changeOutcomeSchema) }),
  },
  'changes.discard': {
    input: changeSelectionSchema,
    output: z.object({ outcomes: z.array(changeOutcomeSchema) }),
  },
  'sessions.execute': {
    input: z.object({
      sessionId: optionalSessionIdSchema,
      language: languageSchema.optional().describe('Language, when the default session has to be created'),
      code: z.string().max(1024 * 1024).describe('Source code to run'),
      timeoutMs: z.number().int().min(100).max(24 * 3_600_000).optional().describe('Timeout of this run in ms'),
      executionId: executionIdSchema,
    }),
    output: executionResultSchema,
  },
  'egress.recent': {
    input: z.object({ sessionId: z.string().min(1).max(64).optional().describe('Only this session; default: every session the caller may see'), limit: z.number().int().min(1).max(2_000).default(200) }),
    output: z.object({ entries: z.array(egressEntrySchema).describe('Newest first') }),
  },
  'sessions.stats': {
    input: z.object({ sessionId: sessionIdSchema }),
    output: sessionStatsSchema,
  },
  'sessions.interrupt': {
    input: z.object({ sessionId: sessionIdSchema }),
    output: z.object({ interrupted: z.boolean() }),
  },
  'sessions.runCommand': {
    input: z.object({
      sessionId: optionalSessionIdSchema,
      command: z.string().min(1).max(64 * 1024).describe('Shell command, run with sh -c in /workspace'),
      timeoutMs: z.number().int().min(100).max(3_600_000).optional().describe('Timeout in ms (default: the session limit)'),
    }),
    output: commandResultSchema,
  },
  'sessions.runFile': {
    input: z.object({
      sessionId: optionalSessionIdSchema,
      path: z.string().min(1).max(4096).describe('File in /workspace to run'),
      timeoutMs: z.number().int().min(100).max(24 * 3_600_000).optional(),
      executionId: executionIdSchema,
    }),
    output: executionResultSchema,
  },
  // Background runs (issue 23): a run, command or file run that returns its id at once; fetched, cancelled, listed.
  'runs.start': {
    input: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('code'), sessionId: optionalSessionIdSchema, language: languageSchema.optional(), code: z.string().max(1024 * 1024) }),
      z.object({ kind: z.literal('command'), sessionId: optionalSessionIdSchema, command: z.string().min(1).max(64 * 1024) }),
      z.object({ kind: z.literal('file'), sessionId: optionalSessionIdSchema, path: z.string().min(1).max(4096) }),
    ]).and(z.object({ timeoutMs: z.number().int().min(100).max(24 * 3_600_000).optional().describe('Timeout of the run in ms (default: one hour, at most the Settings value)') })),
    output: backgroundRunSchema,
  },
  'runs.get': {
    input: z.object({
      runId: runIdSchema,
      since: z.number().int().nonnegative().default(0).describe('Output cursor: characters already read (the `cursor` of the previous answer)'),
      waitMs: z.number().int().min(0).max(60_000).default(0).describe('Wait up to this long for new output or the end of the run'),
      maxChars: z.number().int().min(1).max(256 * 1024).default(64 * 1024).describe('Most characters of output in one answer'),
    }),
    output: runAnswerSchema,
  },
  'runs.cancel': {
    input: z.object({ runId: runIdSchema }),
    output: backgroundRunSchema,
  },
  'runs.list': {
    input: z.object({ sessionId: sessionIdSchema.optional().describe('Only the runs of this session') }),
    output: z.object({ runs: z.array(backgroundRunSchema).describe('Newest first') }),
  },
  // Processes that keep running (issue 17): start_process, list_processes, process_output, stop_process.
  'processes.start': { input: startProcessInputSchema.extend({ sessionId: optionalSessionIdSchema }), output: processInfoSchema },
  'processes.list': { input: z.object({ sessionId: sessionIdSchema.optional().describe('Only this session; default: every session the caller may see') }), output: z.object({ processes: z.array(processInfoSchema) }) },
  'processes.output': { input: processOutputInputSchema, output: processOutputSchema },
  'processes.stop': { input: z.object({ processId: processIdSchema }), output: processInfoSchema },
  // Previews of a sandbox's web apps (issue 17): preview_port; the panel's Preview tab.
  'previews.open': { input: openPreviewInputSchema.extend({ sessionId: optionalSessionIdSchema }), output: previewInfoSchema },
  'previews.list': { input: z.object({ sessionId: sessionIdSchema.optional().describe('Only this session; default: every session the caller may see') }), output: z.object({ previews: z.array(previewInfoSchema) }) },
  'previews.stop': { input: z.object({ previewId: previewIdSchema }), output: previewInfoSchema },
  'previews.ports': { input: z.object({ sessionId: sessionIdSchema }), output: z.object({ ports: z.array(listeningPortSchema).describe('TCP ports something listens on inside the sandbox, read from inside it') }) },
  'packages.install': {
    input: z.object({
      sessionId: optionalSessionIdSchema,
      packages: z.array(packageSpecSchema).min(1).max(100).describe('Package names, optionally with a version (pip: numpy==2.1, npm: lodash@4)'),
    }),
    output: z.object({ results: z.array(packageOutcomeSchema), auditId: auditIdSchema.optional() }),
  },
  'packages.check': {
    input: z.object({ sessionId: optionalSessionIdSchema, packages: z.array(packageSpecSchema).min(1).max(200) }),
    output: z.object({ packages: z.array(z.object({ name: z.string(), installed: z.boolean(), version: z.string().optional() })) }),
  },
  'files.write': {
    input: z.object({
      sessionId: optionalSessionIdSchema,
      path: z.string().min(1).max(4096).describe('Path relative to /workspace'),
      content: z.string().max(64 * 1024 * 1024).describe('File content'),
      encoding: z.enum(['utf8', 'base64']).default('utf8').describe('How content is encoded'),
      append: z.boolean().default(false).describe('Append to the file instead of replacing it'),
    }),
    output: z.object({ path: z.string(), size: z.number().int() }),
  },
  'files.read': {
    input: z.object({
      sessionId: optionalSessionIdSchema,
      path: z.string().min(1).max(4096),
      maxBytes: z.number().int().min(1).max(64 * 1024 * 1024).default(10 * 1024 * 1024),
    }),
    output: z.object({ path: z.string(), size: z.number().int(), mime: z.string(), encoding: z.enum(['utf8', 'base64']), content: z.string() }),
  },
  'files.list': {
    input: z.object({ sessionId: optionalSessionIdSchema, path: z.string().max(4096).default('') }),
    output: z.object({ path: z.string(), entries: z.array(fileEntrySchema) }),
  },
  'environments.list': {
    input: z.object({}),
    output: z.object({ environments: z.array(environmentViewSchema) }),
  },
  'environments.get': {
    input: z.object({ environmentId: environmentIdSchema }),
    output: environmentViewSchema,
  },
  'environments.create': {
    input: environmentDefinitionInputSchema,
    output: environmentViewSchema,
  },
  'environments.update': {
    input: z.object({ environmentId: environmentIdSchema, patch: environmentPatchSchema }),
    output: environmentViewSchema,
  },
  'environments.copy': {
    input: z.object({ environmentId: environmentIdSchema, name: z.string().min(1).max(64).optional() }),
    output: environmentViewSchema,
  },
  'environments.remove': {
    input: z.object({ environmentId: environmentIdSchema }),
    output: z.object({ environmentId: z.string(), removed: z.boolean() }),
  },
  'environments.import': {
    input: z.object({
      fileName: z.string().min(1).max(255).describe('requirements.txt, package.json or environment.yml'),
      content: z.string().max(1024 * 1024),
      includeDev: z.boolean().optional(),
    }),
    output: importedDependenciesSchema,
  },
  'environments.build': {
    input: z.object({ environmentId: environmentIdSchema, force: z.boolean().default(false).describe('Build again even when the image is up to date') }),
    output: environmentViewSchema,
  },
  'sessions.saveAsEnvironment': {
    input: z.object({ sessionId: sessionIdSchema, name: z.string().min(1).max(64).describe('Name of the new environment') }),
    output: environmentViewSchema,
  },
  'snapshots.create': {
    input: z.object({
      sessionId: optionalSessionIdSchema,
      name: z.string().trim().min(1).max(64).regex(/^[^\p{Cc}]*$/u, 'a name cannot contain control characters').optional().describe("A name to show for the snapshot (default: the session's name and the time)"),
    }),
    output: snapshotSchema,
  },
  'snapshots.list': {
    input: z.object({}),
    output: z.object({ snapshots: z.array(snapshotSchema).describe('Newest first'), storedBytes: z.number().int().describe('Disk used by every snapshot together (shared files counted once)') }),
  },
  'snapshots.delete': {
    input: z.object({ snapshotId: snapshotIdSchema }),
    output: z.object({ snapshotId: z.string(), deleted: z.boolean(), freedBytes: z.number().int().describe('Storage no other snapshot used, now freed') }),
  },
  'snapshots.restore': {
    input: z.object({
      snapshot: z.string().trim().min(1).max(64).describe('The snapshot, by id or by name'),
      replay: z.boolean().default(false).describe('Run the recorded runs again, in order, to rebuild the variables (stops at the first that fails)'),
      name: z.string().trim().min(1).max(64).regex(/^[^\p{Cc}]*$/u, 'a name cannot contain control characters').optional().describe('A name for the new session'),
    }),
    output: restoredSessionSchema,
  },
  'sessions.fork': {
    input: z.object({
      sessionId: optionalSessionIdSchema,
      replay: z.boolean().default(false).describe('Run the recorded runs again in the fork, to rebuild the variables'),
      name: z.string().trim().min(1).max(64).regex(/^[^\p{Cc}]*$/u, 'a name cannot contain control characters').optional().describe('A name for the new session'),
    }),
    output: restoredSessionSchema,
  },
  'artifacts.list': {
    input: z.object({ sessionId: z.string().optional(), limit: z.number().int().min(1).max(10_000).default(200) }),
    output: z.object({ artifacts: z.array(artifactSchema) }),
  },
  'artifacts.read': {
    input: z.object({ sha256: z.string().regex(/^[a-f0-9]{64}$/) }),
    output: z.object({ artifact: artifactSchema, contentBase64: z.string() }),
  },
  'audit.list': {
    input: z.object({
      filters: auditFiltersSchema.default({}),
      limit: z.number().int().min(1).max(500).default(50),
      cursor: z.string().regex(/^[0-9]{1,15}$/).optional().describe('nextCursor of the previous page'),
    }),
    output: z.object({ rows: z.array(auditSummarySchema).describe('Newest first'), nextCursor: z.string().optional() }),
  },
  'audit.get': {
    input: z.object({ id: auditIdSchema }),
    output: auditEntrySchema,
  },
  'audit.verify': {
    input: z.object({}),
    output: auditVerifyResultSchema,
  },
  'audit.export': {
    input: z.object({
      format: auditExportFormatSchema,
      filters: auditFiltersSchema.default({}),
      limit: z.number().int().min(1).max(100_000).default(10_000).describe('Most rows to export (oldest first)'),
    }),
    output: z.object({
      content: z.string(),
      rows: z.number().int(),
      truncated: z.boolean().describe('The export stopped at the row limit or the size cap; use `sandpit audit export` for everything'),
    }),
  },
  'audit.notebook': {
    input: z.object({ sessionId: sessionIdSchema.describe('The session, running or ended') }),
    output: auditNotebookSchema,
  },
  'audit.replay': {
    input: z.object({ sessionId: sessionIdSchema.describe('The recorded session whose runs to repeat, in order, in a fresh sandbox') }),
    output: replayViewSchema,
  },
  // Secrets (issue 18): added, changed and attached by the person in the panel only; no method returns a value.
  'secrets.list': {
    input: z.object({}),
    output: z.object({ secrets: z.array(secretInfoSchema), protection: z.enum(['key-file', 'os-keychain']).describe('What seals the values at rest') }),
  },
  'secrets.save': {
    input: secretSaveInputSchema,
    output: secretInfoSchema,
  },
  'secrets.delete': {
    input: z.object({ name: secretNameSchema }),
    output: z.object({ name: z.string(), deleted: z.boolean() }),
  },
  'settings.get': {
    input: z.object({}),
    output: settingsViewSchema,
  },
  'settings.update': {
    input: z.object({ patch: settingsPatchSchema.describe('Only the settings to change') }),
    output: settingsViewSchema,
  },
  'approvals.list': {
    input: z.object({}),
    output: z.object({ pending: z.array(approvalSchema).describe('Oldest first') }),
  },
  'approvals.respond': {
    input: z.object({ id: z.string().min(1).max(64), decision: approvalDecisionSchema }),
    output: z.object({ ok: z.boolean() }),
  },
  'approvals.sessionGrants': {
    input: z.object({ sessionId: sessionIdSchema }),
    output: z.object({ grants: z.array(sessionGrantSchema).describe('Oldest first') }),
  },
  'approvals.revokeSessionGrant': {
    input: z.object({ sessionId: sessionIdSchema, client: z.string().min(1).max(200) }),
    output: z.object({ revoked: z.number().int().min(0) }),
  },
  'connect.info': {
    input: z.object({}),
    output: connectInfoSchema,
  },
  'connect.revealToken': {
    input: z.object({}),
    output: z.object({ token: z.string() }),
  },
  'connect.rotateToken': {
    input: z.object({}),
    output: z.object({ token: z.string() }),
  },
  'connect.panelLink': {
    input: z.object({}),
    output: z.object({ link: z.string().optional().describe('The web panel link with its token; absent while no HTTP server serves this core') }),
  },
  'connect.rotatePanelLink': {
    input: z.object({}),
    output: z.object({ link: z.string().optional(), token: z.string().describe('The new panel token (this panel switches to it)') }),
  },
  'connect.assistants': {
    input: z.object({}),
    output: z.object({ assistants: z.array(assistantStatusSchema).describe('Every assistant Connect knows, found on this computer or not') }),
  },
  'connect.connectAssistant': {
    input: z.object({ id: assistantIdSchema }),
    output: assistantChangeSchema,
  },
  'connect.disconnectAssistant': {
    input: z.object({ id: assistantIdSchema }),
    output: assistantChangeSchema,
  },
} as const;

export const events = {
  /** A row was written: once `running` when a call starts, again when it completes (same id). */
  'audit.appended': auditSummarySchema,
  'environment.updated': environmentViewSchema,
  'environment.removed': z.object({ environmentId: z.string() }),
  'environment.buildLog': z.object({ environmentId: z.string(), line: z.string(), step: z.number().int().optional(), steps: z.number().int().optional() }),
  'egress.refused': z.object({ host: z.string(), port: z.number().int(), time: z.string(), reason: z.string(), sessionId: z.string().optional() }),
  /** A session's sandbox reached a host through the egress proxy (policy "packages"). */
  'egress.allowed': z.object({ host: z.string(), port: z.number().int(), time: z.string(), sessionId: z.string(), secrets: z.array(z.string()).optional().describe('Secrets put in (issue 18), by name') }),
  /** A connection let through reached its host (`answer`: what a plain-HTTP host answered) or failed (`answer`: why, in words). */
  'egress.outcome': z.object({ host: z.string(), port: z.number().int(), time: z.string(), sessionId: z.string(), connected: z.boolean(), answer: z.string().optional() }),
  'engine.status': engineStatusSchema,
  'session.updated': sessionInfoSchema,
  'session.removed': z.object({ sessionId: z.string() }),
  /** A session's container stopped with its files and packages kept (idle, or Sandpit quit while it was kept). */
  'session.paused': z.object({ sessionId: z.string(), reason: z.enum(['idle', 'quit']) }),
  /** A paused session was started again (on first use); variables from before the pause are gone. */
  'session.resumed': z.object({ sessionId: z.string(), durationMs: z.number().nonnegative() }),
  'execution.started': z.object({ sessionId: z.string(), executionId: z.string(), code: z.string(), startedAt: z.string() }),
  'execution.output': z.object({ sessionId: z.string(), executionId: z.string(), stream: streamNameSchema, text: z.string() }),
  'execution.display': z.object({ sessionId: z.string(), executionId: z.string(), display: displaySchema }),
  'execution.done': executionDoneSchema,
  /** A long-running process started, ended or was stopped (issue 17). */
  'process.updated': processInfoSchema,
  /** Output of a long-running process as it comes (stdout and stderr together). */
  /** A preview opened or ended (issue 17). */
  'preview.updated': previewInfoSchema,
  'process.output': z.object({ sessionId: z.string(), processId: z.string(), text: z.string() }),
  'settings.updated': settingsViewSchema,
  /** A replay (audit.replay) moved on: it started its session, or one of its runs started or ended. */
  'replay.updated': replayViewSchema,
  /** A call waits for the person's answer in the panel. */
  'approval.requested': approvalSchema,
  'approval.resolved': z.object({
    id: z.string(),
    decision: approvalOutcomeSchema,
    // Chat approvals (issue 23): set when the person answered in the client's chat rather than the panel.
    answeredIn: z.literal('chat').optional(),
  }),
  /** What a session may run without asking changed: an "Approve for this session" given in the chat, or taken back in the panel. */
  'approval.grants': z.object({ sessionId: z.string() }),
  /**
   * Secrets were added, changed, deleted or detached from a removed environment (issue 18): their names only, never a
   * value. The panel reads secrets.list again.
   */
  'secrets.changed': z.object({ names: z.array(secretNameSchema).describe('The secrets that changed, by name') }),
  /** The MCP clients connected now (after one connected or left). */
  'clients.changed': z.object({ clients: z.array(connectedClientSchema) }),
  /** A background run (issue 23) started, moved on or ended. */
  'run.updated': backgroundRunSchema,
} as const;

export type Methods = typeof methods;
export type MethodName = keyof Methods;
export type MethodInput<M extends MethodName> = z.input<Methods[M]['input']>;
export type MethodParsedInput<M extends MethodName> = z.output<Methods[M]['input']>;
export type MethodOutput<M extends MethodName> = z.infer<Methods[M]['output']>;

export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.infer<Events[E]>;

export const METHOD_NAMES = Object.keys(methods) as MethodName[];
export const EVENT_NAMES = Object.keys(events) as EventName[];
