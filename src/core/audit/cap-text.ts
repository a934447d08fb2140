/** How much of each output stream a row keeps. */
export const AUDIT_OUTPUT_CAP_BYTES = 64 * 1024;

export interface CappedText {
  text: string;
  truncated: boolean;
}

/**
 * `text` cut to at most `maxBytes` of UTF-8 (never inside a character), with a plain marker saying how
 * much was dropped. Text that fits is returned as is.
 */
export function capText(text: string, maxBytes = AUDIT_OUTPUT_CAP_BYTES): CappedText {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncated: false };
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) so the cut falls on a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  const kept = bytes.subarray(0, end).toString('utf8');
  return { text: `${kept}\n[… audit log: output truncated, kept ${end} of ${bytes.length} bytes]`, truncated: true };
}
