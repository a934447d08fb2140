import type { SessionInfo, SessionState } from '../../../../shared/domain/session';

export const STATE_WORDS: Record<SessionState, string> = {
  starting: 'Starting',
  ready: 'Ready',
  busy: 'Running code',
  restarting: 'Restarting',
  stopping: 'Stopping',
  stopped: 'Stopped',
  failed: 'Failed',
};

/** How a run ended, in plain words. */
export const RUN_STATUS_WORDS: Record<string, string> = {
  running: 'Running',
  ok: 'Finished',
  error: 'Error',
  timeout: 'Took too long',
  interrupted: 'Interrupted',
  oom: 'Ran out of memory',
  killed: 'Stopped',
  failed: 'Could not run',
  denied: 'Denied',
};

export function runStatusWords(status: string | undefined): string {
  if (status === undefined) return 'Running';
  return RUN_STATUS_WORDS[status] ?? status;
}

/** A CSS tone for a run status: ok, bad or wait. */
export function runStatusTone(status: string | undefined): 'ok' | 'bad' | 'wait' {
  if (status === undefined || status === 'running') return 'wait';
  return status === 'ok' ? 'ok' : 'bad';
}

export function isEnded(session: SessionInfo): boolean {
  return session.state === 'stopped' || session.state === 'failed' || session.state === 'stopping';
}
