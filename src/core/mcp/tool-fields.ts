import { z } from 'zod';
import { charLimit, TOOL_INPUT_LIMITS } from './mcp-limits';

/** Input fields several tools share, with the words a model reads. */

export const sessionIdField = z
  .string()
  .min(1)
  .max(64)
  .optional()
  .describe(
    'Session to use (from create_session or list_sessions). Leave out to use your default session, created on first use.',
  );

/** A path in /workspace (required), described with its limit. */
export function pathField(description: string): z.ZodString {
  return z
    .string()
    .min(1)
    .max(TOOL_INPUT_LIMITS.pathChars)
    .describe(`${description.replace(/\.$/, '')}; ${charLimit(TOOL_INPUT_LIMITS.pathChars)}.`);
}

export const timeoutSecondsField = z
  .number()
  .min(0.1)
  .max(24 * 3_600)
  .optional()
  .describe(
    'Stop the run after this many seconds (default: the session limit, usually 60). Variables are kept when it stops.',
  );

/** Seconds as the contract's milliseconds (at least the contract's 100 ms minimum). */
export function secondsToMs(seconds: number | undefined): number | undefined {
  return seconds === undefined ? undefined : Math.max(100, Math.round(seconds * 1000));
}

/** `1.2 kB`-style sizes for text a model reads. */
export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} kB`;
  return `${(size / (1024 * 1024)).toFixed(1)} MB`;
}

/** `12 ms` or `3.4 s`. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
