import { z } from 'zod';
import { auditFolderSchema, auditSandboxSchema } from '../../shared/domain/audit';
import type { AuditEntry, AuditStatus, AuditSummary, AuditedMethod } from '../../shared/domain/audit';
import type { AuditRecord, ChainValue } from './audit-chain';

/** How much of the code a list row or live event carries (audit.get returns all of it). */
export const SUMMARY_CODE_CHARS = 1_000;
const SUMMARY_MESSAGE_CHARS = 2_000;

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

/** The sandbox texts checked last (a session's runs all have the same one): parsed and checked once each. */
const sandboxes = new Map<string, AuditEntry['sandbox']>();
const MAX_SANDBOXES = 64;

function sandboxOf(value: ChainValue | undefined): AuditEntry['sandbox'] {
  if (typeof value !== 'string') return undefined;
  if (sandboxes.has(value)) return structuredClone(sandboxes.get(value));
  let checked: AuditEntry['sandbox'];
  try {
    const parsed = auditSandboxSchema.safeParse(JSON.parse(value));
    checked = parsed.success ? parsed.data : undefined;
  } catch {
    checked = undefined;
  }
  if (sandboxes.size >= MAX_SANDBOXES) sandboxes.delete(sandboxes.keys().next().value as string);
  sandboxes.set(value, checked);
  return structuredClone(checked);
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
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (fields[key] === undefined) delete fields[key];
  return value;
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
  const { stdout: _o, stderr: _e, fileContent: _f, result: _r, openSeq: _os, openHash, closeSeq: _cs, closeHash, ...rest } = toAuditEntry(record);
  const codeTruncated = rest.code.length > SUMMARY_CODE_CHARS;
  return defined<AuditSummary>({
    ...rest,
    code: codeTruncated ? rest.code.slice(0, SUMMARY_CODE_CHARS) : rest.code,
    codeTruncated,
    errorMessage: rest.errorMessage !== undefined && rest.errorMessage.length > SUMMARY_MESSAGE_CHARS ? `${rest.errorMessage.slice(0, SUMMARY_MESSAGE_CHARS)}…` : rest.errorMessage,
    hash: closeHash ?? openHash,
  });
}
