/**
 * The size limits of MCP tool inputs and of the messages that carry them — one place for both, so the
 * transport always takes every tool call a schema accepts.
 *
 * Text limits count characters as zod's `.max()` does: UTF-16 code units.
 */
const KIB = 1024;
const MIB = 1024 * KIB;

export const TOOL_INPUT_LIMITS = {
  /** execute_code `code` (the same as the API's sessions.execute). */
  codeChars: MIB,
  /** write_file `content`, per call: a longer file is written in pieces with `append: true`. */
  fileContentChars: MIB,
  /** run_command `command`. */
  commandChars: 64 * KIB,
  /** Any path in /workspace. */
  pathChars: 4_096,
} as const;

/**
 * The most bytes one UTF-16 code unit takes inside a JSON string on the wire: 6, for a control character
 * or a lone surrogate written as `\u001f` (and for any character by an encoder that escapes all non-ASCII,
 * such as Python's json.dumps). UTF-8 itself needs at most 3 bytes per code unit.
 */
export const JSON_ESCAPE_FACTOR = 6;

/**
 * The longest JSON-RPC message `sandpit mcp` reads on stdin, in bytes (one line, without its newline).
 * The largest tool call — write_file with 1 Mi characters of content and a 4,096-character path, every
 * character escaped 6× — is about 6.03 MiB of JSON: 10 MiB leaves ~4 MiB for the envelope and `_meta`.
 * Anything longer is skipped (never held in memory beyond this) and answered with a JSON-RPC error.
 */
export const MCP_MAX_MESSAGE_BYTES = 10 * MIB;

/** `1 MiB`, `64 KiB`, `100 B`: a size as a model reads it. */
export function formatSize(bytes: number): string {
  if (bytes >= MIB && bytes % MIB === 0) return `${bytes / MIB} MiB`;
  if (bytes >= KIB && bytes % KIB === 0) return `${bytes / KIB} KiB`;
  return `${bytes} B`;
}

/** `at most 1,048,576 characters`: a text input's limit, for its `.describe()`. */
export function charLimit(chars: number): string {
  // Not toLocaleString: loading the locale data costs a start of `sandpit mcp` ~15 ms.
  return `at most ${String(chars).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} characters`;
}

/** The limits of the large tool inputs, in one sentence (for the error about an oversized message). */
export function describeToolInputLimits(): string {
  const l = TOOL_INPUT_LIMITS;
  return (
    `Tool inputs have smaller limits: execute_code code ${charLimit(l.codeChars)}, ` +
    `write_file content ${charLimit(l.fileContentChars)} per call (write a longer file in pieces with append: true), ` +
    `run_command command ${charLimit(l.commandChars)}.`
  );
}
