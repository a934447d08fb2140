import type { ToolExtra } from './define-tool';

/** What each in-flight tool call is waiting for now (e.g. the person's approval), by its request. */
const waiting = new WeakMap<ToolExtra, string>();
/** How a long preparation of each in-flight call goes (e.g. an environment build), by its request. */
const notes = new WeakMap<ToolExtra, string>();

/** Records (or, with undefined, clears) what the call of `extra` waits for; its progress messages say so. */
export function setWaiting(extra: ToolExtra, what: string | undefined): void {
  if (what === undefined) waiting.delete(extra);
  else waiting.set(extra, what);
}

/** Records what the call of `extra` is doing now; its progress messages say so until it is done. */
export function setProgressNote(extra: ToolExtra, what: string): void {
  notes.set(extra, what);
}

/** What the call's progress message should say instead of its own, if anything. */
export function waitingFor(extra: ToolExtra): string | undefined {
  return waiting.get(extra) ?? notes.get(extra);
}
