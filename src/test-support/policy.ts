import type { Handlers } from '../core/api/api-types';
import type { ApprovalGate } from '../core/api/approved';
import type { SessionManager } from '../core/sessions/session-manager';

/** Handlers where only the given methods exist; calling any other one fails the test loudly. */
export function onlyHandlers(partial: Partial<Handlers>): Handlers {
  return new Proxy(partial, {
    get(target, key: string | symbol) {
      const handler = target[key as keyof Handlers];
      if (handler) return handler;
      return () => Promise.reject(new Error(`handler ${String(key)} should not be called`));
    },
  }) as Handlers;
}

export interface FakeSessionsOptions {
  /** Sessions that belong to someone else (refused as missing). */
  foreign?: string[];
  /** Sessions with a network. */
  networked?: string[];
  /** A session's file, by path: for run_file approvals. */
  readFile?: (sessionId: string, path: string) => Promise<Buffer>;
}

/** The part of the session manager the approval gate uses: access with ownership, a session's name, network and files. */
export function fakeSessions(options: FakeSessionsOptions = {}): ApprovalGate['sessions'] {
  return {
    access: (id: string, principal: string | undefined) => {
      if (options.foreign?.includes(id) || principal === undefined) throw Object.assign(new Error(`There is no session "${id}".`), { code: 'SESSION_NOT_FOUND' });
      return {
        info: () => ({ id, name: `Session ${id}`, network: options.networked?.includes(id) ? 'packages' : 'none', folders: [] }),
        readFile: async (path: string) => ({ path, content: await (options.readFile ?? (() => Promise.reject(new Error('no file'))))(id, path) }),
      };
    },
  } as unknown as Pick<SessionManager, 'access'>;
}
