"""Sizes and delays of the agent, and the clipping of long texts."""

READ_SIZE = 65536  # a pump reads (and a stream message carries) at most this many bytes at once
WRITE_BATCH = 1 << 20  # the writer joins queued messages into one write, up to about this many bytes
COALESCE = 0.002  # a pump gathers what arrives within 2 ms into one message (fewer, larger chunks)
SYNC_TIMEOUT = 2.0  # a sync whose marker does not come back is given up after this many seconds
MAX_WALK = 20000  # directory entries looked at when listing the files an execution changed
MAX_FILES = 1000  # files listed in `done`
DEFAULT_LIMIT = 1 << 20  # bytes forwarded per stream when a request gives no valid outputLimit
MIN_TEXT_LIMIT = 4096  # results and tracebacks are clipped to max(outputLimit, this) characters


def clip(text, limit):
    """Shorten `text` to about max(limit, MIN_TEXT_LIMIT) characters, saying so."""
    limit = max(limit, MIN_TEXT_LIMIT)
    if len(text) <= limit:
        return text
    return text[:limit] + '\u2026 [%d more characters]' % (len(text) - limit)


def output_limit(value):
    """A request's outputLimit when it is a non-negative integer, else DEFAULT_LIMIT."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        return DEFAULT_LIMIT
    return value
