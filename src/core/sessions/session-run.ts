import { toErrorBody } from '../../shared/api/errors';
import type { Artifact } from '../../shared/domain/artifact';
import type { ExecutionResult } from '../../shared/domain/execution';
import type { Logger } from '../log';
import { captureArtifacts } from './capture-artifacts';
import type { RunHistory } from './run-history';
import type { SandboxDriver } from './sandbox-driver';
import type { SessionIdentity, SessionServices } from './session-types';

/** What one run needs of its session (the Session hands these over from inside its queued job). */
export interface SessionRunContext {
  sessionId: string;
  runtime: SandboxDriver;
  identity: SessionIdentity;
  services: SessionServices;
  history: RunHistory;
  log: Logger;
  /** The notice said once with the next result (taking it clears it). */
  takeNotice(): string | undefined;
}

async function capture(ctx: SessionRunContext, executionId: string, files: Array<{ path: string; size: number }>, displays: ExecutionResult['displays']): Promise<Artifact[]> {
  try {
    return await captureArtifacts({
      agent: ctx.runtime,
      store: ctx.services.artifacts,
      sessionId: ctx.sessionId,
      sessionName: ctx.identity.name,
      executionId,
      files,
      displays,
      maxBytes: ctx.services.maxArtifactBytes,
      maxCount: ctx.services.maxArtifactsPerRun,
      log: ctx.log,
    });
  } catch (error) {
    ctx.log.warn('could not capture artifacts', { error: toErrorBody(error).message });
    return [];
  }
}

/** Runs code in the session's sandbox and tells the bus as it goes: started, output, displays, done. */
export async function runSessionCode(ctx: SessionRunContext, code: string, executionId: string, timeoutMs: number): Promise<ExecutionResult> {
  const { bus } = ctx.services;
  const { sessionId } = ctx;
  const startedAt = Date.now();
  try {
    bus.emit('execution.started', { sessionId, executionId, code, startedAt: new Date(startedAt).toISOString() });
    const outcome = await ctx.runtime.run({
      executionId,
      code,
      timeoutMs,
      outputLimit: ctx.identity.limits.outputBytes,
      onOutput: (stream, text) => bus.emit('execution.output', { sessionId, executionId, stream, text }),
      onDisplay: (display) => bus.emit('execution.display', { sessionId, executionId, display }),
    });
    const artifacts = await capture(ctx, executionId, outcome.done?.files ?? [], outcome.displays);
    const result: ExecutionResult = {
      executionId,
      sessionId,
      status: outcome.status,
      stdout: outcome.stdout,
      stderr: outcome.stderr,
      result: outcome.result,
      error: outcome.error,
      displays: outcome.displays,
      truncated: outcome.truncated,
      durationMs: outcome.durationMs,
      exitCode: outcome.done?.exitCode,
      files: outcome.done?.files ?? [],
      artifacts,
      stateLost: outcome.stateLost,
      message: outcome.message,
      ...(outcome.stoppedBy ? { stoppedBy: outcome.stoppedBy } : {}),
    };
    const notice = ctx.takeNotice();
    if (notice) Object.assign(result, { stateLost: true, message: outcome.message ? `${notice} ${outcome.message}` : notice });
    if (outcome.stateLost) ctx.history.forget();
    else if (result.status === 'ok') ctx.history.remember({ code, language: ctx.identity.language });
    bus.emit('execution.done', {
      sessionId,
      executionId,
      status: result.status,
      durationMs: result.durationMs,
      ...(result.result !== undefined && result.result !== '' ? { result: result.result } : {}),
      ...(result.error ? { error: result.error } : {}),
      ...(result.message ? { message: result.message } : {}),
      ...(result.truncated.stdout || result.truncated.stderr ? { truncated: true } : {}),
      ...(result.stoppedBy ? { stoppedBy: result.stoppedBy } : {}),
    });
    return result;
  } catch (error) {
    const body = toErrorBody(error);
    bus.emit('execution.done', { sessionId, executionId, status: 'failed', durationMs: Date.now() - startedAt, errorCode: body.code, message: body.message });
    if (body.code === 'DOCKER_UNAVAILABLE') ctx.services.engine.markDown(body.message);
    throw error;
  }
}
