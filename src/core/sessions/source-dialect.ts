import { stripTypeScriptTypes } from 'node:module';
import type { ExecutionError } from '../../shared/domain/execution';
import { languageEntry } from '../../shared/domain/languages';
import type { Language } from '../../shared/domain/languages';

/** The code as its agent runs it, or why it cannot run (a syntax error, with its line). */
export type AgentSource = { code: string } | { error: ExecutionError };

/**
 * Translates a run's code from its language's dialect into what its agent runs (see LanguageEntry.dialect):
 * TypeScript loses its types in place — whitespace where they were — so an error's line and column are the
 * TypeScript ones. Syntax only TypeScript's compiler can turn into JavaScript (enums, namespaces, parameter
 * properties) is transformed instead; then lines after it may differ.
 */
export function agentSource(language: Language, code: string): AgentSource {
  if (languageEntry(language).dialect !== 'typescript') return { code };
  try {
    return { code: quietly(() => stripTypeScriptTypes(code, { mode: 'strip' })) };
  } catch (error) {
    if (codeOf(error) === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') {
      try {
        return { code: quietly(() => stripTypeScriptTypes(code, { mode: 'transform' })) };
      } catch (again) {
        return { error: syntaxError(again) };
      }
    }
    return { error: syntaxError(error) };
  }
}

function codeOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/** Node's stripper names the line on the first line of its stack (":3"), then the source line and a caret. */
function syntaxError(error: unknown): ExecutionError {
  if (!(error instanceof Error)) return { name: 'SyntaxError', value: String(error), traceback: String(error) };
  const stack = error.stack ?? '';
  const line = /^:(\d+)/.exec(stack)?.[1];
  const shown = stack.split('\n\n')[0] ?? '';
  const value = `${error.message}${line ? ` (line ${line})` : ''}`;
  return { name: 'SyntaxError', value, traceback: `${shown.replace(/^:\d+\n/, line ? `line ${line}:\n` : '')}\n\nSyntaxError: ${value}`.trim() };
}

let warned = false;

/** Node warns once per process that its stripper is experimental; that warning is not the person's business. */
function quietly(strip: () => string): string {
  if (warned) return strip();
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, and called with `process` as this
  const original = process.emitWarning;
  const filtered = (warning: string | Error, ...rest: unknown[]): void => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (!text.includes('stripTypeScriptTypes')) Reflect.apply(original, process, [warning, ...rest]);
  };
  process.emitWarning = filtered;
  try {
    return strip();
  } finally {
    process.emitWarning = original;
    warned = true;
  }
}
