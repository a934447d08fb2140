import type { Display, StopCause, StreamName } from '../../shared/domain/execution';
import type { CollectedOutput } from './execution-collector';

/** One run as the SandboxDriver takes it, and how it ended (with the words its caller is told). */
export interface RunRequest {
  executionId: string;
  code: string;
  timeoutMs: number;
  outputLimit: number;
  onOutput(stream: StreamName, text: string): void;
  onDisplay(display: Display): void;
}

export type RunStatus = 'ok' | 'error' | 'timeout' | 'interrupted' | 'oom' | 'killed';

export interface RunOutcome extends CollectedOutput {
  status: RunStatus;
  durationMs: number;
  stateLost: boolean;
  message?: string;
  /** The session was stopped during the run (status `killed`): by whom. */
  stoppedBy?: StopCause;
}

/** What the caller of a run stopped by the session's removal is told: who stopped it, and that nothing of it is left. */
export function stoppedRunMessage(cause: StopCause): string {
  const who =
    cause.by === 'person'
      ? 'The person stopped this session'
      : cause.by === 'assistant'
        ? `${cause.name ? `The assistant "${cause.name}"` : 'An assistant'} stopped this session`
        : `Sandpit stopped this session${cause.why ? ` (${cause.why})` : ''}`;
  return `${who} during the run; it no longer exists: its variables and the files in /workspace are gone. Start a new session to go on.`;
}

/** A time limit as a run's message says it: "30 s", "1.5 s". */
export function timeLimitWords(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
