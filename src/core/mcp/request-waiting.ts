import type { ToolExtra } from './define-tool';

/** What each in-flight tool call is waiting for now (e.g. the person's approval), by its request. */
const waiting = new WeakMap<ToolExtra, string>();

/** Records (or, with undefined, clears) what the call of `extra` waits for; its progress messages say so. */
export function setWaiting(extra: ToolExtra, what: string | undefined): void {
  if (what === undefined) waiting.delete(extra);
  else waiting.set(extra, what);
}

export function waitingFor(extra: ToolExtra): string | undefined {
  return waiting.get(extra);
}
