import type { ApprovalKind, ApprovalOutcome } from '../../../../shared/domain/approval';

export const KIND_QUESTIONS: Record<ApprovalKind, string> = {
  execute: 'Run this code?',
  'run-command': 'Run this command?',
  'run-file': 'Run this file?',
  install: 'Install these packages?',
  'check-packages': 'Check whether these packages are installed?',
  'create-session': 'Start a new session?',
};

export const OUTCOME_WORDS: Record<ApprovalOutcome, string> = {
  approved: 'approved',
  denied: 'denied',
  expired: 'not answered in time, so it was denied',
  cancelled: 'withdrawn by the assistant',
};

/** Seconds left until `expiresAt`, never below 0. */
export function secondsLeft(expiresAt: string, now: number): number {
  const end = Date.parse(expiresAt);
  return Number.isNaN(end) ? 0 : Math.max(0, Math.ceil((end - now) / 1_000));
}

/** 75 → "1:15". */
export function clock(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `${m}:${String(s).padStart(2, '0')}`;
}
