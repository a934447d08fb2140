import type { ToolExtra } from './tool-extra';

/** What each in-flight tool call is waiting for now (e.g. the person's approval), by its request. */
const waiting = new WeakMap<ToolExtra, string>();
/** How a long preparation of each in-flight call goes (e.g. an environment build), by its request. */
const notes = new WeakMap<ToolExtra, string>();
/** Sends a progress notification now, for calls whose progress is reported (see progress-ticker). */
const nudges = new WeakMap<ToolExtra, () => void>();

/** Records (or, with undefined, clears) what the call of `extra` waits for; its progress messages say so. */
export function setWaiting(extra: ToolExtra, what: string | undefined): void {
  if (what === undefined) waiting.delete(extra);
  else waiting.set(extra, what);
  if (what !== undefined) nudges.get(extra)?.();
}

/** Records what the call of `extra` is doing now; the client hears it at once, and until it is done. */
export function setProgressNote(extra: ToolExtra, what: string): void {
  const changed = notes.get(extra) !== what;
  notes.set(extra, what);
  if (changed) nudges.get(extra)?.();
}

/** What the call's progress message should say instead of its own, if anything. */
export function waitingFor(extra: ToolExtra): string | undefined {
  return waiting.get(extra) ?? notes.get(extra);
}

/** Lets a reporter send progress at once when what the call waits for or does changes. */
export function onProgressChange(extra: ToolExtra, nudge: (() => void) | undefined): void {
  if (nudge) nudges.set(extra, nudge);
  else nudges.delete(extra);
}
