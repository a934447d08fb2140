import { z } from 'zod';
import { toErrorBody } from '../../shared/api/errors';
import type { ExecutionResult, ExecutionStatus } from '../../shared/domain/execution';
import { languageSchema } from '../../shared/domain/session';
import { call } from '../api/dispatcher';
import type { CallContext, Handlers } from '../api/api-types';
import type { Logger } from '../log';

/**
 * Body of `POST /execute`. `env` is an environment's id or name (default: the language's built-in one);
 * `timeout` is in seconds; `files` maps a /workspace path to its UTF-8 content.
 */
export const restExecuteRequestSchema = z
  .object({
    code: z.string().max(1024 * 1024),
    language: languageSchema.optional(),
    env: z.string().min(1).max(128).optional(),
    timeout: z
      .number()
      .positive()
      .max(24 * 3_600)
      .optional(),
    files: z.record(z.string().min(1).max(4096), z.string()).optional(),
  })
  .strict();
export type RestExecuteRequest = z.infer<typeof restExecuteRequestSchema>;

export interface RestArtifact {
  path: string;
  mime: string;
  size: number;
  sha256: string;
}

export interface RestExecuteResponse {
  stdout: string;
  stderr: string;
  exit_code: number;
  artifacts: RestArtifact[];
}

/** The shell's exit code for each way a run can end (124 like `timeout`, 128 + signal otherwise). */
export const EXIT_CODES: Record<ExecutionStatus, number> = {
  ok: 0,
  error: 1,
  timeout: 124,
  interrupted: 130,
  oom: 137,
  killed: 137,
};

/** The REST answer for a finished run; the traceback and any plain-language note join stderr, as a script's would. */
export function toRestResponse(result: ExecutionResult): RestExecuteResponse {
  const extra = [result.error?.traceback, result.status === 'ok' ? undefined : result.message].filter(
    (s): s is string => !!s,
  );
  let stderr = result.stderr;
  for (const text of extra) {
    if (stderr.includes(text)) continue;
    stderr += `${stderr === '' || stderr.endsWith('\n') ? '' : '\n'}${text}${text.endsWith('\n') ? '' : '\n'}`;
  }
  return {
    stdout: result.stdout,
    stderr,
    exit_code: EXIT_CODES[result.status],
    artifacts: result.artifacts.map((a) => ({ path: a.path, mime: a.mime, size: a.size, sha256: a.sha256 })),
  };
}

/**
 * One-shot run: a fresh session, the files uploaded, the code run, the session stopped — always, also
 * on error and when the client goes away (`signal`), which stops the run with it.
 */
export async function runRestExecute(
  api: Handlers,
  request: RestExecuteRequest,
  context: CallContext,
  signal: AbortSignal,
  log: Logger,
): Promise<RestExecuteResponse> {
  const session = await call(api, 'sessions.create', { environment: request.env, language: request.language }, context);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= call(api, 'sessions.stop', { sessionId: session.id }, context).then(
      () => undefined,
      (error: unknown) =>
        log.warn('could not stop the REST session', { sessionId: session.id, error: toErrorBody(error).message }),
    ));
  const onAbort = (): void => void stop();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    if (signal.aborted) throw new Error('The client went away.');
    for (const [path, content] of Object.entries(request.files ?? {})) {
      await call(api, 'files.write', { sessionId: session.id, path, content, encoding: 'utf8' }, context);
    }
    const timeoutMs = request.timeout === undefined ? undefined : Math.max(100, Math.round(request.timeout * 1000));
    const result = await call(
      api,
      'sessions.execute',
      { sessionId: session.id, code: request.code, timeoutMs },
      context,
    );
    return toRestResponse(result);
  } finally {
    signal.removeEventListener('abort', onAbort);
    await stop();
  }
}
