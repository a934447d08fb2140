import { z } from 'zod';
import { auditEntrySchema, auditFolderSchema, auditSandboxSchema, auditSummarySchema } from '../../shared/domain/audit';
import type { AuditEntry, AuditStatus, AuditSummary, AuditedMethod } from '../../shared/domain/audit';
import type { AuditRecord, ChainValue } from './audit-chain';

/** How much of the code a list row or live event carries (audit.get returns all of it). */
export const SUMMARY_CODE_CHARS = 1_000;
const SUMMARY_MESSAGE_CHARS = 2_000;
/** The fields of a row a summary leaves out (the output, the result, the chain's steps): the contract's difference. */
const NOT_IN_SUMMARY = new Set(Object.keys(auditEntrySchema.shape).filter((key) => !(key in auditSummarySchema.shape)));

function text(value: ChainValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function integer(value: ChainValue | undefined): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  return undefined;
}

function hashes(value: ChainValue | undefined): string[] {
  if (typeof value !== 'string' || value === '') return [];
  try {
    const parsed = JSON.parse(value) as unknown;
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The sandbox texts checked last (a session's runs all have the same one): parsed and checked once each, kept as the
 * JSON of what the check gave (undefined: refused), and each caller given its own copy parsed from that JSON.
 */
const sandboxes = new Map<string, string | undefined>();
const MAX_SANDBOXES = 64;

function sandboxOf(value: ChainValue | undefined): AuditEntry['sandbox'] {
  if (typeof value !== 'string') return undefined;
  let checked = sandboxes.get(value);
  if (checked === undefined && !sandboxes.has(value)) {
    try {
      const parsed = auditSandboxSchema.safeParse(JSON.parse(value));
      checked = parsed.success ? JSON.stringify(parsed.data) : undefined;
    } catch {
      checked = undefined;
    }
    if (sandboxes.size >= MAX_SANDBOXES) sandboxes.delete(sandboxes.keys().next().value as string);
    sandboxes.set(value, checked);
  }
  return checked === undefined ? undefined : (JSON.parse(checked) as AuditEntry['sandbox']);
}

function foldersOf(value: ChainValue | undefined): AuditEntry['folders'] {
  if (typeof value !== 'string') return undefined;
  try {
    const parsed = z.array(auditFolderSchema).safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Drops undefined fields (of an object made here), so entries compare and serialize the same however they were built. */
function defined<T extends object>(value: T): T {
  // a new object, not `delete` on this one: an object that loses fields becomes a slow dictionary for every later use
  const fields = value as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const key in fields) if (fields[key] !== undefined) kept[key] = fields[key];
  return kept as T;
}

/** A stored row as the contract's AuditEntry. */
export function toAuditEntry(record: AuditRecord): AuditEntry {
  return defined<AuditEntry>({
    id: integer(record.id) ?? 0,
    method: text(record.method) as AuditedMethod,
    startedAt: text(record.started_at) ?? '',
    finishedAt: text(record.finished_at),
    transport: text(record.transport) ?? '',
    client: text(record.client),
    principal: text(record.principal),
    sessionId: text(record.session_id),
    environment: text(record.environment),
    executionId: text(record.execution_id),
    code: text(record.code) ?? '',
    fileContent: text(record.file_content),
    status: text(record.status) as AuditStatus,
    exitCode: integer(record.exit_code),
    durationMs: integer(record.duration_ms),
    stdout: text(record.stdout) ?? '',
    stderr: text(record.stderr) ?? '',
    stdoutTruncated: integer(record.stdout_truncated) === 1,
    stderrTruncated: integer(record.stderr_truncated) === 1,
    artifacts: hashes(record.artifacts),
    errorCode: text(record.error_code),
    errorMessage: text(record.error_message),
    sandbox: sandboxOf(record.sandbox),
    replayOf: integer(record.replay_of),
    result: text(record.result),
    folders: foldersOf(record.folders),
    approval: text(record.approval),
    backgroundRun: text(record.background_run),
    openSeq: integer(record.open_seq) ?? 0,
    openHash: text(record.open_hash) ?? '',
    closeSeq: integer(record.close_seq),
    closeHash: text(record.close_hash),
  });
}

/** A stored row as a list row / live event: no output, the code and message cut short. */
export function toAuditSummary(record: AuditRecord): AuditSummary {
  const entry = toAuditEntry(record);
  const fields = entry as Record<string, unknown>;
  // Copied field by field (an object rest and spread of some thirty fields cost more than the row itself).
  const summary: Record<string, unknown> = {};
  for (const key in fields) if (!NOT_IN_SUMMARY.has(key)) summary[key] = fields[key];
  const codeTruncated = entry.code.length > SUMMARY_CODE_CHARS;
  if (codeTruncated) summary.code = entry.code.slice(0, SUMMARY_CODE_CHARS);
  summary.codeTruncated = codeTruncated;
  if (entry.errorMessage !== undefined && entry.errorMessage.length > SUMMARY_MESSAGE_CHARS) summary.errorMessage = `${entry.errorMessage.slice(0, SUMMARY_MESSAGE_CHARS)}…`;
  summary.hash = entry.closeHash ?? entry.openHash;
  return summary as AuditSummary;
}
