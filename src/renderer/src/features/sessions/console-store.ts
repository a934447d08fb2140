import { createStore } from 'zustand/vanilla';
import type { StoreApi } from 'zustand/vanilla';
import type { SandpitEvent } from '../../../../shared/api/client';
import type { StopCause } from '../../../../shared/domain/execution';
import { EMPTY_BUFFER, appendEntry, endEntries } from './console-buffer';
import type { ConsoleBuffer } from './console-buffer';

/** A run the panel saw start (from live events): the history when the activity log is not available. */
export interface RunSeen {
  executionId: string;
  sessionId: string;
  code: string;
  startedAt: string;
  status?: string;
  durationMs?: number;
  errorCode?: string;
  stoppedBy?: StopCause;
}

export interface ConsoleState {
  /** Live console per session id. */
  buffers: Record<string, ConsoleBuffer>;
  /** Runs seen per session id, newest first. */
  runs: Record<string, RunSeen[]>;
  applyEvent: (event: SandpitEvent) => void;
  /** A note in the console; one for a run (`executionId`) is not added twice (its end may have said it already). */
  addNote: (sessionId: string, text: string, executionId?: string) => void;
  clear: (sessionId: string) => void;
}

export type ConsoleStore = StoreApi<ConsoleState>;

const MAX_RUNS_PER_SESSION = 500;
/** Consoles kept in memory; the one written to longest ago is forgotten first. */
export const MAX_CONSOLES = 30;

function hasNote(buffer: ConsoleBuffer, executionId: string, text: string): boolean {
  return buffer.entries.some((e) => e.kind === 'note' && e.executionId === executionId && e.text === text);
}

function lastId(buffer: ConsoleBuffer): number {
  return buffer.entries[buffer.entries.length - 1]?.id ?? 0;
}

function forgetQuietest(buffers: Record<string, ConsoleBuffer>, keep: string): Record<string, ConsoleBuffer> {
  const ids = Object.keys(buffers);
  if (ids.length <= MAX_CONSOLES) return buffers;
  const quietest = ids.filter((id) => id !== keep).sort((a, b) => lastId(buffers[a]!) - lastId(buffers[b]!))[0];
  if (quietest === undefined) return buffers;
  const { [quietest]: _forgotten, ...rest } = buffers;
  return rest;
}

export function createConsoleStore(): ConsoleStore {
  return createStore<ConsoleState>()((set, get) => {
    const update = (sessionId: string, change: (buffer: ConsoleBuffer) => ConsoleBuffer): void => {
      const buffers = { ...get().buffers, [sessionId]: change(get().buffers[sessionId] ?? EMPTY_BUFFER) };
      set({ buffers: forgetQuietest(buffers, sessionId) });
    };
    const updateRun = (sessionId: string, executionId: string, change: Partial<RunSeen>): void => {
      const runs = get().runs[sessionId];
      if (!runs?.some((r) => r.executionId === executionId)) return;
      set({
        runs: {
          ...get().runs,
          [sessionId]: runs.map((r) => (r.executionId === executionId ? { ...r, ...change } : r)),
        },
      });
    };

    return {
      buffers: {},
      runs: {},

      applyEvent: (event) => {
        switch (event.name) {
          case 'execution.started': {
            const { sessionId, executionId, code, startedAt } = event.payload;
            update(sessionId, (b) => appendEntry(b, { kind: 'code', executionId, text: code, time: startedAt }));
            const runs = [{ executionId, sessionId, code, startedAt }, ...(get().runs[sessionId] ?? [])];
            set({ runs: { ...get().runs, [sessionId]: runs.slice(0, MAX_RUNS_PER_SESSION) } });
            break;
          }
          case 'execution.output': {
            const { sessionId, executionId, stream, text } = event.payload;
            update(sessionId, (b) => appendEntry(b, { kind: stream, executionId, text }));
            break;
          }
          case 'execution.display': {
            const { sessionId, executionId, display } = event.payload;
            update(sessionId, (b) => appendEntry(b, { kind: 'display', executionId, display }));
            break;
          }
          case 'execution.done': {
            const { sessionId, executionId, status, durationMs, errorCode, stoppedBy } = event.payload;
            const extra = { ...(errorCode ? { errorCode } : {}), ...(stoppedBy ? { stoppedBy } : {}) };
            update(sessionId, (b) => {
              const adds = endEntries(event.payload).filter((e) => !(e.kind === 'note' && hasNote(b, executionId, e.text)));
              const withEnd = adds.reduce((acc, entry) => appendEntry(acc, entry), b);
              return appendEntry(withEnd, { kind: 'done', executionId, status, durationMs, ...extra });
            });
            updateRun(sessionId, executionId, { status, durationMs, ...extra });
            break;
          }
          default:
            break;
        }
      },

      addNote: (sessionId, text, executionId = '') => {
        update(sessionId, (b) => (executionId !== '' && hasNote(b, executionId, text) ? b : appendEntry(b, { kind: 'note', executionId, text })));
      },

      clear: (sessionId) => {
        set({ buffers: { ...get().buffers, [sessionId]: EMPTY_BUFFER } });
      },
    };
  });
}
