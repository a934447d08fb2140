import { SandpitError } from '../../shared/api/errors';
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
    // Its session may be gone (the process is then listed as stopped): whose it was still counts.
    if (sessions.list().some((s) => s.id === info.sessionId)) sessions.access(info.sessionId, principal);
    else {
      const owner = processes.ownerOf(processId);
      if (principal !== undefined && owner !== undefined && owner !== principal)
        throw new SandpitError('INVALID_INPUT', `There is no process ${processId} (list_processes lists them).`);
    }
    return info.id;
  };
  return {
    'processes.start': async ({ sessionId, command, name, cwd }, context) => {
      // A folder that could never be used is refused before any session is made.
      const relative = cwd === undefined ? undefined : fromWorkspacePath(cwd);
      const session = await kit.target(sessionId, context);
      return processes.start(session, {
        command,
        ...(name === undefined ? {} : { name }),
        ...(relative ? { cwd: relative } : {}),
      });
    },
    'processes.list': async ({ sessionId }, context) => {
      const { principal } = context;
      const visible = new Set(sessions.listFor(principal).map((s) => s.id));
      // A session that is gone still lists its processes (stopped) to whoever owned it.
      const maySee = (id: string, owner: string | undefined): boolean =>
        principal === undefined || visible.has(id) || (owner !== undefined && owner === principal);
      if (sessionId !== undefined) {
        const listed = processes.list((id, owner) => id === sessionId && maySee(id, owner));
        if (listed.length === 0) sessions.access(sessionId, principal);
        return { processes: listed };
      }
      return { processes: processes.list(maySee) };
    },
    'processes.output': async ({ processId, since, waitSeconds }, context) =>
      processes.output(mine(processId, context.principal), since, Math.round(waitSeconds * 1000)),
    'processes.stop': async ({ processId }, context) =>
      processes.stop(
        mine(processId, context.principal),
        context.principal === undefined
          ? 'the person stopped it in the panel'
          : `${context.client ?? 'an assistant'} stopped it`,
      ),
  };
}
