import { languageOfPath } from '../../shared/domain/runtimes';
import { fromWorkspacePath } from '../files/safe-path';
import type { Handlers } from './api-types';
import type { HandlerKit } from './handler-kit';

type RunMethods = 'sessions.execute' | 'sessions.runCommand' | 'sessions.runFile';

/** Code, commands and files run in a session: each a job on the session's queue, like every operation. */
export function runHandlers(kit: HandlerKit): Pick<Handlers, RunMethods> {
  return {
    'sessions.execute': async ({ sessionId, language, code, timeoutMs, executionId }, context) =>
      (await kit.target(sessionId, context, language)).execute(code, { timeoutMs, executionId }),
    'sessions.runCommand': async ({ sessionId, command, timeoutMs }, context) => (await kit.target(sessionId, context)).runCommand(command, timeoutMs),
    'sessions.runFile': async ({ sessionId, path, timeoutMs, executionId }, context) => {
      // A path that could never be run is refused before any session is made.
      const relative = fromWorkspacePath(path);
      const session = await kit.target(sessionId, context, languageOfPath(relative));
      // What the person approved runs, not what the file holds by now; without an approval, the file as it is.
      const approvedContent = context.approvedFileContent;
      return session.runFile(relative, { timeoutMs, executionId, ...(approvedContent === undefined ? {} : { approvedContent }) });
    },
  };
}
