import type { StopCause } from '../../../../shared/domain/execution';
import type { SessionInfo, SessionState } from '../../../../shared/domain/session';
import { RUN_STATUS_WORDS } from '../../../../shared/domain/audit-words';
import { formatDuration } from '../../lib/format';

export const STATE_WORDS: Record<SessionState, string> = {
  starting: 'Starting',
  ready: 'Ready',
  busy: 'Running code',
  restarting: 'Restarting',
  paused: 'Paused',
  stopping: 'Stopping',
  stopped: 'Stopped',
  failed: 'Failed',
};

/** The state badge: what the session is doing, or "Unknown" while Sandpit cannot be reached (it may have changed). */
export function stateWords(state: SessionState, lost: boolean): string {
  return lost ? 'Unknown' : STATE_WORDS[state];
}

export function runStatusWords(status: string | undefined): string {
  if (status === undefined) return 'Running';
  return RUN_STATUS_WORDS[status] ?? status;
}

/**
 * How a run ended, for the console: "Finished in 4.2 s", "Failed", "Took too long (stopped after 60 s)".
 * Short runs get no duration: "Failed in 0 ms" says nothing a person needs.
 */
export function doneWords(status: string, durationMs: number, stoppedBy?: StopCause): string {
  const meaningful = Number.isFinite(durationMs) && durationMs >= 1_000;
  if (stoppedBy) {
    const who = stoppedBy.by === 'person' ? 'you' : stoppedBy.by === 'assistant' ? (stoppedBy.name ?? 'an assistant') : 'Sandpit';
    const why = stoppedBy.by === 'sandpit' && stoppedBy.why ? ` (${stoppedBy.why})` : '';
    return `Stopped by ${who} after ${formatDuration(durationMs)}${why}`;
  }
  const words = runStatusWords(status);
  if (status === 'timeout' || status === 'interrupted' || status === 'killed') return meaningful ? `${words} (stopped after ${formatDuration(durationMs)})` : words;
  if (!meaningful) return words;
  return status === 'ok' ? `${words} in ${formatDuration(durationMs)}` : `${words} after ${formatDuration(durationMs)}`;
}

/** A CSS tone for a run status: ok, bad or wait. */
export function runStatusTone(status: string | undefined): 'ok' | 'bad' | 'wait' {
  if (status === undefined || status === 'running') return 'wait';
  return status === 'ok' ? 'ok' : 'bad';
}

export const NETWORK_SHORT: Record<SessionInfo['network'], string> = {
  none: 'No network',
  packages: 'Package downloads only',
  open: 'Unrestricted internet',
};

export function isEnded(session: SessionInfo): boolean {
  return session.state === 'stopped' || session.state === 'failed' || session.state === 'stopping';
}

/** Who started it, in words. */
export function startedBy(session: SessionInfo, midSentence = false): string {
  const words = session.client && session.client !== 'panel' ? `Started by ${session.client}` : 'Started here';
  return midSentence ? `s${words.slice(1)}` : words;
}

/**
 * What a session with secrets can use (issue 18), in words: "Its requests to api.openai.com carry the secret openai
 * (inside, OPENAI_API_KEY holds only a stand-in)." — ", ticked for this session" after the name of one the person
 * ticked for it rather than its environment. Names, hosts and variables only: never a value.
 */
export function secretsWords(secrets: ReadonlyArray<{ name: string; hosts: string[]; envVar: string; forSession?: boolean }>): string {
  return secrets
    .map((s) => `Its requests to ${s.hosts.join(', ')} carry the secret ${s.name}${s.forSession ? ', ticked for this session' : ''} (inside, ${s.envVar} holds only a stand-in).`)
    .join(' ');
}
