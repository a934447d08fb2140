"""User code's exceptions as the protocol's `error` messages, without the agent's frames."""

import traceback

from .limits import clip
from .own_process import is_agent_file
from .protocol import error_message


def clean_traceback(tb):
    """Drop the agent's frames: everything before the first cell frame, and any agent frame after it."""
    frames = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    names = [t.tb_frame.f_code.co_filename for t in frames]
    start = next((i for i, name in enumerate(names) if name.startswith('<cell-')), 0)
    kept = [t for t, name in zip(frames[start:], names[start:]) if not is_agent_file(name)]
    for before, after in zip(kept, kept[1:]):
        before.tb_next = after
    if kept:
        kept[-1].tb_next = None
    return kept[0] if kept else None


def error_report(eid, exc, limit):
    """The `error` message for an exception raised by user code."""
    tb = exc.__traceback__ = clean_traceback(exc.__traceback__)
    try:
        value = str(exc)
    except Exception:
        value = '<exception str() failed>'
    try:
        text = ''.join(traceback.format_exception(type(exc), exc, tb))
    except Exception:
        text = '%s: %s\n' % (type(exc).__name__, value)
    return error_message(eid, type(exc).__name__, clip(value, limit), clip(text, limit))
