import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { AuditSummary } from '../../shared/domain/audit';
import type { Language } from '../../shared/domain/session';
import { commandFinish, executionFinish, failureFinish, installFinish } from '../audit/audit-outcome';
import type { AuditFinish, AuditStart } from '../audit/audit-writer';
import type { Logger } from '../log';
import { newId } from '../util/ids';
import type { EventBus } from './event-bus';
import { languageOfPath } from './language-of-path';
import type { CallContext, Handlers } from './sandpit-api';

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
  /** The environment a session was made from, if any. */
  environmentOf?(sessionId: string): string | undefined;
  log?: Logger;
}

interface Call extends Omit<AuditStart, 'transport' | 'client' | 'principal' | 'startedAt'> {
  /** The language of the default session the call uses when it names no session. */
  language?: Language;
}

/**
 * Runs one code-running call under the audit log: the `running` row is on disk before the handler starts,
 * and the completed row is on disk before the result (or error) goes back to the caller. A call whose row
 * cannot be written does not run; a result whose completion cannot be written is not handed out.
 */
async function audited<T extends object>(
  deps: AuditDeps,
  context: CallContext,
  call: Call,
  run: () => Promise<T>,
  finish: (result: T) => AuditFinish,
): Promise<T & { auditId: number }> {
  const { language, ...start } = call;
  let opened: AuditSummary;
  try {
    opened = deps.audit.begin({ ...start, transport: context.transport, client: context.client, principal: context.principal });
  } catch (error) {
    deps.log?.error('failed to write an audit row; the call was refused', { method: call.method, error: toErrorBody(error).message });
    throw new SandpitError('INTERNAL', `The call was not run because it could not be written to the audit log: ${toErrorBody(error).message}`);
  }
  deps.bus.emit('audit.appended', opened);
  // runFile: the code that ran is the file's content, read inside the handler; its run announces it.
  let fileContent: string | undefined;
  const stopListening = call.method === 'sessions.runFile' && call.executionId !== undefined
    ? deps.bus.on('execution.started', (event) => {
        if (event.executionId === call.executionId) fileContent = event.code;
      })
    : undefined;
  const where = (sessionId: string | undefined): Pick<AuditFinish, 'sessionId' | 'environment' | 'fileContent'> => {
    const session = sessionId ?? call.sessionId ?? deps.defaultSession?.(context, language);
    return { sessionId: session, environment: session === undefined ? undefined : deps.environmentOf?.(session), fileContent };
  };
  let result: T;
  try {
    result = await run();
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
  const outcome = finish(result);
  try {
    deps.bus.emit('audit.appended', deps.audit.complete(opened.id, { ...outcome, ...where(outcome.sessionId) }));
  } catch (error) {
    deps.log?.error('failed to complete an audit row', { auditId: opened.id, error: toErrorBody(error).message });
    throw new SandpitError('INTERNAL', `The call ran but its result could not be written to the audit log (row ${opened.id}): ${toErrorBody(error).message}`);
  }
  return { ...result, auditId: opened.id };
}

/**
 * The API with every call that runs code (sessions.execute, sessions.runCommand, sessions.runFile,
 * packages.install) audited: the one place, so the panel, REST and MCP are all recorded with the caller's
 * client, transport and principal. Every other method passes through untouched.
 */
export function withAudit(handlers: Handlers, deps: AuditDeps): Handlers {
  return {
    ...handlers,
    'sessions.execute': (input, context) => {
      const executionId = input.executionId ?? newId('run', 8);
      return audited(deps, context, { method: 'sessions.execute', sessionId: input.sessionId, executionId, code: input.code, language: input.language }, () => handlers['sessions.execute']({ ...input, executionId }, context), executionFinish);
    },
    'sessions.runFile': (input, context) => {
      const executionId = input.executionId ?? newId('run', 8);
      return audited(deps, context, { method: 'sessions.runFile', sessionId: input.sessionId, executionId, code: input.path, language: languageOfPath(input.path) }, () => handlers['sessions.runFile']({ ...input, executionId }, context), executionFinish);
    },
    'sessions.runCommand': (input, context) =>
      audited(deps, context, { method: 'sessions.runCommand', sessionId: input.sessionId, code: input.command }, () => handlers['sessions.runCommand'](input, context), commandFinish),
    'packages.install': (input, context) =>
      audited(deps, context, { method: 'packages.install', sessionId: input.sessionId, code: input.packages.join('\n') }, () => handlers['packages.install'](input, context), (result) => installFinish(result.results)),
  };
}
