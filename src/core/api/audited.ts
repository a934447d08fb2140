import type { MethodName, MethodOutput, MethodParsedInput } from '../../shared/api/contract';
import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { AuditFolder, AuditSandbox, AuditSummary, AuditedMethod } from '../../shared/domain/audit';
import type { Language } from '../../shared/domain/languages';
import { failureFinish } from '../audit/audit-outcome';
import type { AuditFinish, AuditStart } from '../audit/audit-writer';
import type { EventBus } from '../events/event-bus';
import type { Logger } from '../log';
import { newId } from '../util/ids';
import type { CallContext } from './api-types';
import type { AuditRule } from './method-policy';

/** What the wrapper writes to: the audit store (begin/complete are durable commits). */
export interface AuditLog {
  begin(start: AuditStart): AuditSummary;
  complete(id: number, finish: AuditFinish): AuditSummary;
}

export interface AuditDeps {
  audit: AuditLog;
  bus: EventBus;
  /** The session a call without a session id ran in (the caller's default session), when known. */
  defaultSession?(context: CallContext, language: Language | undefined): string | undefined;
  /** How the audit log names a session's environment (its name, and an open network when it has one). */
  environmentOf?(sessionId: string): string | undefined;
  /** The sandbox a session has (isolation, runtime, network, shared folders). */
  sandboxOf?(sessionId: string): AuditSandbox | undefined;
  /** The folders of the person's computer a session has, and their mode. */
  foldersOf?(sessionId: string): AuditFolder[] | undefined;
  /**
   * A rule with `later` (a process that keeps running): calls `complete` once what the call started ends,
   * and says whether it will; the row stays `running` until then.
   */
  completeLater?(method: AuditedMethod, result: unknown, complete: (finish: AuditFinish) => void): boolean;
  log?: Logger;
}

/**
 * Runs one call under the audit log: the `running` row is on disk before the call starts, and the
 * completed row is on disk before the result (or error) goes back to the caller. A call whose row cannot
 * be written does not run; a result whose completion cannot be written is not handed out.
 */
export async function audited<M extends MethodName>(
  deps: AuditDeps,
  rule: AuditRule<M>,
  rawInput: MethodParsedInput<M>,
  context: CallContext,
  run: (input: MethodParsedInput<M>, auditId: number) => Promise<MethodOutput<M>>,
  approvalOf?: () => string | undefined,
): Promise<MethodOutput<M> & { auditId: number }> {
  // A run gets its id before it starts, so its row and its live events name the same run.
  const given = (rawInput as { executionId?: string }).executionId;
  const executionId = rule.execution ? (given ?? newId('run', 8)) : undefined;
  const input: MethodParsedInput<M> = rule.execution ? { ...rawInput, executionId } : rawInput;
  const language = rule.language(input);
  let opened: AuditSummary;
  try {
    opened = deps.audit.begin({
      method: rule.method,
      sessionId: rule.sessionId(input),
      ...(executionId ? { executionId } : {}),
      code: rule.code(input),
      transport: context.transport,
      client: context.client,
      principal: context.principal,
      ...(context.replayOf === undefined ? {} : { replayOf: context.replayOf }),
      ...(context.backgroundRun === undefined ? {} : { backgroundRun: context.backgroundRun }),
    });
  } catch (error) {
    deps.log?.error('failed to write an audit row; the call was refused', { method: rule.method, error: toErrorBody(error).message });
    throw new SandpitError('INTERNAL', `The call was not run because it could not be written to the audit log: ${toErrorBody(error).message}`);
  }
  deps.bus.emit('audit.appended', opened);
  // runFile: the code that ran is the file's content, read inside the handler; its run announces it.
  let fileContent: string | undefined;
  const stopListening =
    rule.method === 'sessions.runFile' && executionId !== undefined
      ? deps.bus.on('execution.started', (event) => {
          if (event.executionId === executionId) fileContent = event.code;
        })
      : undefined;
  const where = (sessionId: string | undefined): Pick<AuditFinish, 'sessionId' | 'environment' | 'fileContent' | 'sandbox' | 'folders' | 'approval'> => {
    const session = sessionId ?? rule.sessionId(input) ?? deps.defaultSession?.(context, language);
    const sandbox = session === undefined ? undefined : deps.sandboxOf?.(session);
    const folders = session === undefined ? undefined : deps.foldersOf?.(session);
    const approval = approvalOf?.();
    return {
      sessionId: session,
      environment: session === undefined ? undefined : deps.environmentOf?.(session),
      fileContent,
      ...(sandbox ? { sandbox } : {}),
      ...(folders?.length ? { folders } : {}),
      ...(approval === undefined ? {} : { approval }),
    };
  };
  let result: MethodOutput<M>;
  try {
    result = await run(input, opened.id);
  } catch (error) {
    stopListening?.();
    try {
      deps.bus.emit('audit.appended', deps.audit.complete(opened.id, { ...where(undefined), ...failureFinish(error) }));
    } catch (auditError) {
      deps.log?.error('failed to complete an audit row', { auditId: opened.id, error: toErrorBody(auditError).message });
    }
    throw error;
  }
  stopListening?.();
  const completeNow = (outcome: AuditFinish): AuditSummary => deps.audit.complete(opened.id, { ...outcome, ...where(outcome.sessionId) });
  if (rule.later && deps.completeLater) {
    const will = deps.completeLater(rule.method, result, (finish) => {
      try {
        deps.bus.emit('audit.appended', completeNow(finish));
      } catch (error) {
        deps.log?.error('failed to complete an audit row', { auditId: opened.id, error: toErrorBody(error).message });
      }
    });
    if (will) return { ...result, auditId: opened.id };
  }
  const outcome = rule.finish(result);
  try {
    deps.bus.emit('audit.appended', completeNow(outcome));
  } catch (error) {
    deps.log?.error('failed to complete an audit row', { auditId: opened.id, error: toErrorBody(error).message });
    throw new SandpitError('INTERNAL', `The call ran but its result could not be written to the audit log (row ${opened.id}): ${toErrorBody(error).message}`);
  }
  return { ...result, auditId: opened.id };
}
