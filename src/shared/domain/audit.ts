import { z } from 'zod';
import { isolationSchema } from './isolation';
import { sharedFolderSchema } from './shared-folder';
import { limitsSchema } from './limits';
import { LANGUAGES } from './languages';

/** The contract methods that run code: each call is one row of the audit log. */
export const AUDITED_METHODS = ['sessions.execute', 'sessions.runCommand', 'sessions.runFile', 'packages.install', 'packages.check', 'changes.apply', 'changes.discard', 'processes.start', 'previews.open'] as const;
export const auditedMethodSchema = z.enum(AUDITED_METHODS);
export type AuditedMethod = z.infer<typeof auditedMethodSchema>;

/**
 * `running` until the call returns; then the run's own status (ok, error, timeout, interrupted, oom, killed),
 * `failed` when the call threw (error code and message say why) or `denied` when it was refused. A row left
 * `running` by a process that died becomes `interrupted` when the next core opens the log.
 */
export const AUDIT_STATUSES = ['running', 'ok', 'error', 'timeout', 'interrupted', 'oom', 'killed', 'failed', 'denied'] as const;
export const auditStatusSchema = z.enum(AUDIT_STATUSES);
export type AuditStatus = z.infer<typeof auditStatusSchema>;

export const auditIdSchema = z.number().int().min(1).describe('Row id in the audit log');

/** One row, complete: what `audit.get` and the exports return. */
/** The sandbox a run had, as the audit row records it. */
export const auditSandboxSchema = z.object({
  isolation: isolationSchema,
  /** The engine's runtime (runc, runsc, runsc-nonet …). */
  runtime: z.string().optional(),
  network: z.enum(['none', 'packages', 'open']).optional(),
  /** What a replay starts from: the session's language, image, environment and limits. */
  language: z.enum(LANGUAGES).optional(),
  image: z.string().optional(),
  environmentId: z.string().optional(),
  limits: limitsSchema.optional(),
  /** The session's name when the run ended (what Activity calls it after the session has gone). */
  sessionName: z.string().max(200).optional(),
  /** Secrets (issue 18): the names of the secrets the session's requests could use — names only, never a value. */
  secrets: z.array(z.string().max(64)).max(100).optional(),
});
export type AuditSandbox = z.infer<typeof auditSandboxSchema>;

/** A folder of the person's computer a run's session had, and how (read-only or read-write). */
export const auditFolderSchema = sharedFolderSchema;
export type AuditFolder = z.infer<typeof auditFolderSchema>;

export const auditEntrySchema = z.object({
  id: auditIdSchema,
  method: auditedMethodSchema,
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  transport: z.string().describe('ipc, http, mcp-http, mcp-stdio, rest or internal'),
  client: z.string().optional().describe("The client's own name (MCP clientInfo.name, panel, rest)"),
  principal: z.string().optional(),
  sessionId: z.string().optional(),
  environment: z.string().optional(),
  executionId: z.string().optional(),
  code: z.string().describe('The code; the command for run_command; one package per line for installs; the file path for run_file'),
  fileContent: z.string().optional().describe('run_file: the content of the file that ran'),
  status: auditStatusSchema,
  exitCode: z.number().int().optional(),
  durationMs: z.number().int().optional(),
  stdout: z.string(),
  stderr: z.string(),
  stdoutTruncated: z.boolean(),
  stderrTruncated: z.boolean(),
  artifacts: z.array(z.string()).describe('sha256 of every artifact the run made'),
  errorCode: z.string().optional(),
  errorMessage: z.string().optional(),
  sandbox: auditSandboxSchema.optional().describe('The isolation, runtime and network the run had (and what a replay starts from)'),
  folders: z.array(auditFolderSchema).optional().describe('Folders of the person\'s computer the session had, where and how (ro/rw)'),
  result: z.string().optional().describe('The value of the last expression of a run (its repr)'),
  approval: z.string().optional().describe('An asked call: how its approval question was answered, and where (the panel, or the chat of which client)'),
  replayOf: auditIdSchema.optional().describe('A replayed run: the row of the original run it repeats'),
  backgroundRun: z.string().optional().describe('A background run (issue 23): its run id (get_run, cancel_run)'),
  replays: z.array(auditIdSchema).optional().describe('audit.get: the rows that replayed this run, oldest first'),
  openSeq: z.number().int(),
  openHash: z.string(),
  closeSeq: z.number().int().optional(),
  closeHash: z.string().optional(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** A row as lists and live events carry it: no output, the code cut short. */
export const auditSummarySchema = auditEntrySchema
  .omit({ stdout: true, stderr: true, fileContent: true, result: true, replays: true, openSeq: true, openHash: true, closeSeq: true, closeHash: true })
  .extend({
    codeTruncated: z.boolean().describe('code holds only the beginning; audit.get returns all of it'),
    hash: z.string().describe('The latest chain hash of the row (its completion once finished)'),
  });
export type AuditSummary = z.infer<typeof auditSummarySchema>;

/** An ISO 8601 time (2030-01-31T12:00:00Z, with an offset or Z) or a day (2030-01-31 = its start, UTC). */
const isoTime = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);

export const auditFiltersSchema = z.object({
  client: z.string().max(128).optional().describe('Part of the client\'s name, in any case ("claude" finds "Claude Desktop")'),
  sessionId: z.string().max(64).optional(),
  status: auditStatusSchema.optional(),
  method: auditedMethodSchema.optional(),
  from: isoTime.optional().describe('Rows started at or after this time'),
  to: isoTime.optional().describe('Rows started before this time'),
  search: z.string().min(1).max(1_000).optional().describe('Text to find in the code (case-insensitive for ASCII)'),
});
export type AuditFilters = z.infer<typeof auditFiltersSchema>;

export const auditVerifyResultSchema = z.object({
  ok: z.boolean(),
  rows: z.number().int().describe('Rows checked'),
  brokenAt: z.number().int().optional().describe('The first row where the chain does not hold'),
  reason: z.string().optional().describe('What is wrong, in plain words'),
  pruned: z.number().int().optional().describe('Older rows removed by the retention setting (their chain head is kept)'),
});
export type AuditVerifyResult = z.infer<typeof auditVerifyResultSchema>;

export const AUDIT_EXPORT_FORMATS = ['jsonl', 'csv'] as const;
export const auditExportFormatSchema = z.enum(AUDIT_EXPORT_FORMATS);
export type AuditExportFormat = z.infer<typeof auditExportFormatSchema>;

/** What audit.notebook answers: a session's audit rows as an nbformat 4.5 notebook. */
export const auditNotebookSchema = z.object({
  fileName: z.string().describe('A file name for it, e.g. "Python-1.ipynb"'),
  mime: z.literal('application/x-ipynb+json'),
  content: z.string().describe("The notebook (nbformat 4.5 JSON): one code cell per audit row of the session, with its outputs"),
  cells: z.number().int(),
});
