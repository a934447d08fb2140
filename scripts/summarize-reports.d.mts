export interface Step {
  name: string;
  kind: 'check' | 'vitest' | 'playwright';
  /** null when the process could not be started or was killed by a signal. */
  exitCode: number | null;
  /** The JSON report's path, for vitest and playwright steps. */
  report?: string;
  seconds?: number;
}

export interface StepCount {
  name: string;
  passed: number;
  failed: number;
  skipped: number;
  note: string;
  /** Each failed test: where it is, its name, and the first line of its error. */
  failures: string[];
}

export interface Summary {
  passed: number;
  failed: number;
  skipped: number;
  perStep: StepCount[];
  /** `N passed, N failed[, N skipped]` */
  line: string;
}

export function readJsonReport(path: string): unknown;
export function countStep(step: Step, readReport?: (path: string) => unknown): StepCount;
export function formatSummary(totals: { passed: number; failed: number; skipped: number }): string;
export function summarize(steps: Step[], readReport?: (path: string) => unknown): Summary;
export function printSummary(summary: Summary, write?: (text: string) => void): void;
