import { languageOfPath } from '../../shared/domain/languages';
import { fromWorkspacePath } from '../files/safe-path';
import type { Session } from '../sessions/session';
import type { CallContext, Handlers } from './api-types';
import type { BackgroundRuns } from './background-runs';
import type { HandlerKit } from './handler-kit';

type RunMethods = 'sessions.execute' | 'sessions.runCommand' | 'sessions.runFile';

/**
 * Tells the caller which session its run goes to and, when jobs are queued ahead of it there (a background run),
 * that it waits and for what; returns what the session calls when the run's turn comes.
 */
function announce(session: Session, context: CallContext, runs: BackgroundRuns): () => void {
  context.onSession?.(session.id);
  const waiting = runs.describeQueue(session.id, session.pending);
  if (waiting) context.onWaiting?.(waiting);
  return () => {
    if (waiting) context.onWaiting?.(undefined);
    context.onStarted?.();
  };
}

/** Code, commands and files run in a session: each a job on the session's queue, like every operation. */
export function runHandlers(kit: HandlerKit, runs: BackgroundRuns): Pick<Handlers, RunMethods> {
  return {
    'sessions.execute': async ({ sessionId, language, code, timeoutMs, executionId }, context) => {
      const session = await kit.target(sessionId, context, language);
      return session.execute(code, { timeoutMs, executionId, onStart: announce(session, context, runs) });
    },
    'sessions.runCommand': async ({ sessionId, command, timeoutMs }, context) => {
      const session = await kit.target(sessionId, context);
      return session.runCommand(command, timeoutMs, announce(session, context, runs), context.onOutput);
    },
    'sessions.runFile': async ({ sessionId, path, timeoutMs, executionId }, context) => {
      // A path that could never be run is refused before any session is made.
      const relative = fromWorkspacePath(path);
      const session = await kit.target(sessionId, context, languageOfPath(relative));
      // What the person approved runs, not what the file holds by now; without an approval, the file as it is.
      const approvedContent = context.approvedFileContent;
      return session.runFile(relative, {
        timeoutMs,
        executionId,
        onStart: announce(session, context, runs),
        ...(approvedContent === undefined ? {} : { approvedContent }),
      });
    },
  };
}
