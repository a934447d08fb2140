import { fromWorkspacePath } from '../files/safe-path';
import type { ProcessManager } from '../sessions/session-processes';
import type { Handlers } from './api-types';
import type { HandlerKit } from './handler-kit';

type ProcessMethods = 'processes.start' | 'processes.list' | 'processes.output' | 'processes.stop';

/** Processes that keep running (issue 17): each one lives in a session the caller may use. */
export function processHandlers(kit: HandlerKit, processes: ProcessManager): Pick<Handlers, ProcessMethods> {
  const { sessions } = kit;
  /** The process, when the caller may use its session (else: no such process, as for another's session). */
  const mine = (processId: string, principal: string | undefined): string => {
    const info = processes.get(processId);
    sessions.access(info.sessionId, principal);
    return info.id;
  };
  return {
    'processes.start': async ({ sessionId, command, name, cwd }, context) => {
      // A folder that could never be used is refused before any session is made.
      const relative = cwd === undefined ? undefined : fromWorkspacePath(cwd);
      const session = await kit.target(sessionId, context);
      return processes.start(session, { command, ...(name === undefined ? {} : { name }), ...(relative ? { cwd: relative } : {}) });
    },
    'processes.list': async ({ sessionId }, context) => {
      if (sessionId !== undefined) {
        sessions.access(sessionId, context.principal);
        return { processes: processes.list(new Set([sessionId])) };
      }
      const visible = new Set(sessions.listFor(context.principal).map((s) => s.id));
      return { processes: processes.list(context.principal === undefined ? undefined : visible) };
    },
    'processes.output': async ({ processId, since, waitSeconds }, context) =>
      processes.output(mine(processId, context.principal), since, Math.round(waitSeconds * 1000)),
    'processes.stop': async ({ processId }, context) =>
      processes.stop(mine(processId, context.principal), context.principal === undefined ? 'the person stopped it in the panel' : `${context.client ?? 'an assistant'} stopped it`),
  };
}
