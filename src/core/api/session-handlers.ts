import type { Handlers } from './api-types';
import { isPanel } from './api-types';
import type { HandlerKit } from './handler-kit';

type SessionMethods = 'sessions.list' | 'sessions.get' | 'sessions.stop' | 'sessions.restart' | 'sessions.interrupt' | 'sessions.stats' | 'sessions.setKept';

/** Finding, stopping, restarting and interrupting sessions: only those the caller may use. */
export function sessionHandlers(kit: HandlerKit): Pick<Handlers, SessionMethods> {
  const { sessions } = kit;
  return {
    'sessions.list': async (_input, context) => ({ sessions: sessions.listFor(context.principal) }),
    'sessions.get': async ({ sessionId }, context) => sessions.access(sessionId, context.principal).info(),
    'sessions.stop': async ({ sessionId, ifIdle }, context) => {
      const session = sessions.access(sessionId, context.principal);
      // Checked and stopped in one go (nothing can be queued in between): a busy session stays.
      if (ifIdle === true && !session.idle) return { sessionId, stopped: false };
      await sessions.stop(sessionId, isPanel(context) ? { by: 'person' } : { by: 'assistant', ...(context.client ? { name: context.client } : {}) });
      return { sessionId, stopped: true };
    },
    'sessions.restart': async ({ sessionId }, context) => sessions.access(sessionId, context.principal).restart(),
    'sessions.setKept': async ({ sessionId, keep }, context) => {
      sessions.access(sessionId, context.principal);
      return (await sessions.setKept(sessionId, keep)).info();
    },
    'sessions.interrupt': async ({ sessionId }, context) => ({ interrupted: sessions.access(sessionId, context.principal).interrupt() }),
    'sessions.stats': async ({ sessionId }, context) => {
      const session = sessions.access(sessionId, context.principal);
      const stats = await session.stats();
      return {
        at: new Date().toISOString(),
        cpu: stats.cpu,
        cpuLimit: session.identity.limits.cpus,
        memoryBytes: stats.memoryBytes,
        memoryLimitBytes: stats.memoryLimitBytes,
        ...(stats.workspaceBytes === undefined ? {} : { workspaceBytes: stats.workspaceBytes }),
        ...(stats.workspaceLimitBytes === undefined ? {} : { workspaceLimitBytes: stats.workspaceLimitBytes }),
        pids: stats.pids,
      };
    },
  };
}
