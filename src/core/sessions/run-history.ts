import type { Language } from '../../shared/domain/languages';

/** One successful run, as it ran (what a replay runs again). */
export interface RunRecord {
  code: string;
  language: Language;
}

/** The recorded runs as a snapshot or a kept session's record carries them. */
export interface RecordedRuns {
  runs: RunRecord[];
  /** false: the session ran more than the history keeps, so a replay would be partial. */
  complete: boolean;
}

/** The runs a session remembers: beyond these, the history is marked incomplete. */
const MAX_HISTORY_RUNS = 2_000;
const MAX_HISTORY_CHARS = 16 * 1024 * 1024;

/** A session's successful runs in order, since its last restart (what a fork's replay runs again). */
export class RunHistory {
  private runs: RunRecord[] = [];
  private chars = 0;
  private complete = true;

  constructor(from?: RecordedRuns) {
    if (!from) return;
    this.runs = [...from.runs];
    this.chars = this.runs.reduce((sum, run) => sum + run.code.length, 0);
    this.complete = from.complete;
  }

  remember(run: RunRecord): void {
    if (!this.complete) return;
    if (this.runs.length >= MAX_HISTORY_RUNS || this.chars + run.code.length > MAX_HISTORY_CHARS) {
      this.complete = false;
      return;
    }
    this.runs.push(run);
    this.chars += run.code.length;
  }

  forget(): void {
    this.runs = [];
    this.chars = 0;
    this.complete = true;
  }

  get recorded(): RecordedRuns {
    return { runs: [...this.runs], complete: this.complete };
  }
}
