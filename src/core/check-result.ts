/** One line of `sandpit doctor`: what was checked, whether it is fine, and how to fix it when not. */
export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
  /** How to fix it, in plain words (only when not ok). */
  fix?: string;
}
