import type { Language } from '../../shared/domain/session';

/**
 * The session language a workspace file runs in, by its extension: `.py` Python, `.js`/`.mjs`/`.cjs`
 * JavaScript, `.sh`/`.bash` bash; undefined for anything else (run_file refuses it). The one place
 * that decides, so the approval prompt, the audit row and the run all name the same session.
 */
export function languageOfPath(path: string): Language | undefined {
  if (/\.py$/i.test(path)) return 'python';
  if (/\.(m?js|cjs)$/i.test(path)) return 'javascript';
  if (/\.(ba)?sh$/i.test(path)) return 'bash';
  return undefined;
}
