import type { EventPayload } from '../../../../shared/api/contract';
import type { Display, StopCause } from '../../../../shared/domain/execution';

/** One block of a session's console: code that ran, output as it streamed, a picture, or how a run ended. */
export type ConsoleEntry =
  | { id: number; kind: 'code'; executionId: string; text: string; time: string }
  | { id: number; kind: 'stdout' | 'stderr'; executionId: string; text: string }
  | { id: number; kind: 'display'; executionId: string; display: Display }
  | { id: number; kind: 'result' | 'error' | 'note'; executionId: string; text: string }
  | { id: number; kind: 'done'; executionId: string; status: string; durationMs: number; errorCode?: string; stoppedBy?: StopCause };

export interface ConsoleBuffer {
  entries: ConsoleEntry[];
  /** Characters held (text and display data), to keep the buffer within `maxChars`. */
  chars: number;
  /** Whether older entries were dropped to stay within the caps. */
  trimmed: boolean;
}

export interface ConsoleCaps {
  maxEntries: number;
  maxChars: number;
  /** A picture larger than this (base64 characters) is shown as a note instead. */
  maxDisplayChars: number;
}

export const CONSOLE_CAPS: ConsoleCaps = { maxEntries: 2_000, maxChars: 512 * 1024, maxDisplayChars: 2 * 1024 * 1024 };

export const EMPTY_BUFFER: ConsoleBuffer = { entries: [], chars: 0, trimmed: false };

let nextId = 1;

type NewEntry = ConsoleEntry extends infer E ? (E extends ConsoleEntry ? Omit<E, 'id'> : never) : never;

function sizeOf(entry: ConsoleEntry): number {
  switch (entry.kind) {
    case 'display':
      return entry.display.data.length;
    case 'done':
      return 16;
    default:
      return entry.text.length;
  }
}

/** Drops the oldest entries until the buffer fits its caps again. */
function trim(buffer: ConsoleBuffer, caps: ConsoleCaps): ConsoleBuffer {
  let { entries, chars } = buffer;
  let drop = 0;
  let cut: ConsoleEntry | undefined;
  while (entries.length - drop > caps.maxEntries || (chars > caps.maxChars && entries.length - drop > 1)) {
    const oldest = entries[drop]!;
    const over = chars - caps.maxChars;
    // A long output entry loses only its head (the newest output stays visible), not the whole of it.
    if (entries.length - drop <= caps.maxEntries && (oldest.kind === 'stdout' || oldest.kind === 'stderr') && oldest.text.length > over) {
      cut = { ...oldest, text: oldest.text.slice(over) };
      chars -= over;
      break;
    }
    chars -= sizeOf(oldest);
    drop++;
  }
  if (drop === 0 && !cut) return buffer;
  entries = cut ? [cut, ...entries.slice(drop + 1)] : entries.slice(drop);
  return { entries, chars, trimmed: true };
}

/**
 * Adds an entry. Output of the same stream and run that arrives in pieces joins the last entry, so a
 * chatty program makes few entries; a single piece longer than the cap keeps only its tail.
 */
export function appendEntry(buffer: ConsoleBuffer, entry: NewEntry, caps: ConsoleCaps = CONSOLE_CAPS): ConsoleBuffer {
  if (entry.kind === 'display' && entry.display.data.length > caps.maxDisplayChars) {
    return appendEntry(
      buffer,
      {
        kind: 'note',
        executionId: entry.executionId,
        text: 'A picture was made but is too large to show here. Find it under Artifacts.',
      },
      caps,
    );
  }
  const last = buffer.entries[buffer.entries.length - 1];
  if (
    (entry.kind === 'stdout' || entry.kind === 'stderr') &&
    last?.kind === entry.kind &&
    last.executionId === entry.executionId
  ) {
    let text = last.text + entry.text;
    let trimmed = buffer.trimmed;
    if (text.length > caps.maxChars) {
      text = text.slice(text.length - caps.maxChars);
      trimmed = true;
    }
    const joined: ConsoleEntry = { ...last, text };
    const entries = [...buffer.entries.slice(0, -1), joined];
    return trim({ entries, chars: buffer.chars - last.text.length + text.length, trimmed }, caps);
  }
  let added = { ...entry, id: nextId++ };
  let trimmed = buffer.trimmed;
  if ((added.kind === 'stdout' || added.kind === 'stderr') && added.text.length > caps.maxChars) {
    added = { ...added, text: added.text.slice(added.text.length - caps.maxChars) };
    trimmed = true;
  }
  return trim({ entries: [...buffer.entries, added], chars: buffer.chars + sizeOf(added), trimmed }, caps);
}

/** How a run ended, as its `execution.done` event says (whoever started it). */
export type RunEnd = EventPayload<'execution.done'>;

/**
 * What a run's end adds beyond its streamed output: the value of the last expression (what the caller
 * received), the error with its traceback, and Sandpit's note (timeouts, memory, restarts, resume, why it
 * could not run). For every run, whoever started it. A run stopped with its session gets no note: its end
 * line says who stopped it.
 */
export function endEntries(end: RunEnd): NewEntry[] {
  const out: NewEntry[] = [];
  const { executionId } = end;
  if (end.result !== undefined && end.result !== '') out.push({ kind: 'result', executionId, text: end.result });
  if (end.error) {
    const text = end.error.traceback.trim() || `${end.error.name}: ${end.error.value}`;
    out.push({ kind: 'error', executionId, text });
  }
  if (end.truncated) out.push({ kind: 'note', executionId, text: 'The output was too long and was cut short.' });
  if (end.message && !end.stoppedBy) out.push({ kind: 'note', executionId, text: end.message });
  return out;
}
