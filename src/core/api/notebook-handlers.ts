import { SandpitError } from '../../shared/api/errors';
import type { AuditEntry } from '../../shared/domain/audit';
import type { Language } from '../../shared/domain/languages';
import { NOTEBOOK_MIME, buildNotebook, notebookFileName } from '../notebook/notebook-builder';
import type { Handlers } from './api-types';
import type { HandlerKit } from './handler-kit';
import { DEFAULT_LANGUAGE } from '../../shared/domain/languages';

/** The most rows one notebook (and one replay) is made of. */
export const SESSION_ROWS_MAX = 2_000;

/** The language a session had: as its rows recorded it, else as the live session says, else the default language. */
export function sessionLanguage(kit: HandlerKit, sessionId: string, rows: readonly AuditEntry[]): Language {
  const recorded = rows.find((r) => r.sandbox?.language)?.sandbox?.language;
  if (recorded) return recorded;
  try {
    return kit.sessions.session(sessionId).info().language;
  } catch {
    return DEFAULT_LANGUAGE;
  }
}

/** The name a live session has (an ended one is known by its id). */
function sessionName(kit: HandlerKit, sessionId: string): string | undefined {
  try {
    return kit.sessions.session(sessionId).info().name;
  } catch {
    return undefined;
  }
}

/**
 * A session's history as a Jupyter notebook, from its audit rows and the artifact store (so an ended session has
 * one too). The panel gets every session's; any other caller only the rows of its own calls.
 */
export function notebookHandlers(kit: HandlerKit): Pick<Handlers, 'audit.notebook'> {
  return {
    'audit.notebook': async ({ sessionId }, context) => {
      const rows = kit.audit.sessionRows(sessionId, context.principal, SESSION_ROWS_MAX + 1);
      if (rows.length === 0) throw new SandpitError('NOT_FOUND', `No runs of the session ${sessionId} are in the audit log${context.principal === undefined ? '' : ' for this client'}.`);
      const name = sessionName(kit, sessionId);
      const notebook = await buildNotebook({
        sessionId,
        ...(name ? { name } : {}),
        language: sessionLanguage(kit, sessionId, rows),
        rows: rows.slice(0, SESSION_ROWS_MAX),
        moreRows: rows.length > SESSION_ROWS_MAX,
        artifact: (sha256) => kit.artifacts.get(sha256).catch(() => undefined),
      });
      return { fileName: notebookFileName(sessionId, name), mime: NOTEBOOK_MIME, content: `${JSON.stringify(notebook, null, 1)}\n`, cells: notebook.cells.length };
    },
  };
}
