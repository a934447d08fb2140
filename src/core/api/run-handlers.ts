import type { MethodName } from '../../shared/api/contract';
import { SandpitError } from '../../shared/api/errors';
import { SANDBOX_USER, WORKSPACE_DIR } from '../docker/container-profile';
import { fromWorkspacePath } from '../files/safe-path';
import { readWorkspaceFile } from '../sessions/session-files';
import { languageOfPath } from './language-of-path';
import type { HandlerKit, Handlers } from './sandpit-api';

type RunMethods = 'sessions.execute' | 'sessions.runCommand' | 'sessions.runFile';

/** The largest file run_file runs (the approval prompt reads it with the same cap). */
export const MAX_RUN_FILE_BYTES = 1024 * 1024;

/** Code, commands and files run in a session: each on the session's FIFO, like every run. */
export function runHandlers(kit: HandlerKit): Pick<Handlers, RunMethods> {
  const { sessions, docker } = kit;
  return {
    'sessions.execute': async ({ sessionId, language, code, timeoutMs, executionId }, context) => {
      const id = await kit.target(sessionId, context, language);
      return sessions.execute(id, code, { timeoutMs, executionId });
    },
    'sessions.runCommand': async ({ sessionId, command, timeoutMs }, context) => {
      const id = await kit.target(sessionId, context);
      const limitMs = timeoutMs ?? sessions.get(id).limits.timeoutMs;
      return sessions.enqueue(id, async (runtime) => {
        const started = Date.now();
        const seconds = Math.max(1, Math.ceil(limitMs / 1000));
        // `timeout -s KILL` ends the command inside the container: killing an exec client would not.
        const r = await docker.exec(runtime.containerId, ['timeout', '-s', 'KILL', String(seconds), 'sh', '-c', command], {
          user: SANDBOX_USER,
          workingDir: WORKSPACE_DIR,
          timeoutMs: limitMs + 10_000,
          maxOutputBytes: sessions.get(id).limits.outputBytes,
        });
        const timedOut = r.timedOut || r.exitCode === 137 && Date.now() - started >= limitMs - 50;
        return { sessionId: id, exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, timedOut, durationMs: Date.now() - started };
      });
    },
    'sessions.runFile': async ({ sessionId, path, timeoutMs, executionId }, context) => {
      const relative = fromWorkspacePath(path);
      const language = languageOfPath(relative);
      const id = await kit.target(sessionId, context, language);
      const info = sessions.get(id);
      if (!language || language !== info.language) {
        throw new SandpitError('INVALID_INPUT', `"${relative}" cannot be run in a ${info.language} session: run .py files in Python sessions, .js files in JavaScript sessions and .sh files in bash sessions, or use run_command for anything else.`);
      }
      // What the person approved runs, not what the file holds by now; without an approval, the file as it is.
      const code = context.approvedFileContent ?? (await readWorkspaceFile(docker, info.containerId, relative, MAX_RUN_FILE_BYTES)).content.toString('utf8');
      // The file runs in the session's state (like IPython's %run -i): what it defines stays available.
      return sessions.execute(id, code, { timeoutMs, executionId });
    },
  } satisfies Pick<Handlers, MethodName & RunMethods>;
}
