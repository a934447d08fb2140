'use strict';
/* Sizes and delays of the agent, and the clipping of long texts. */

const READ_CHUNK = 65536; // stream messages carry at most this many bytes of output
const COALESCE_MS = 2; // output arriving within 2 ms is sent as one message
const MARK_TIMEOUT_MS = 5000; // a mark whose markers do not arrive is released without them after this
const MAX_WALK = 20000; // directory entries looked at when listing the files an execution changed
const MAX_FILES = 1000; // files listed in `done`
const DEFAULT_LIMIT = 1 << 20; // bytes forwarded per stream when a request gives no valid outputLimit
const MIN_TEXT_LIMIT = 4096; // results and tracebacks are clipped to max(outputLimit, this) characters

function clip(text, limit) {
  const max = Math.max(limit, MIN_TEXT_LIMIT);
  return text.length <= max ? text : `${text.slice(0, max)}\u2026 [${text.length - max} more characters]`;
}

module.exports = {
  READ_CHUNK,
  COALESCE_MS,
  MARK_TIMEOUT_MS,
  MAX_WALK,
  MAX_FILES,
  DEFAULT_LIMIT,
  MIN_TEXT_LIMIT,
  clip,
};
