"""The JSON-lines protocol with the host (version 1, see ../../PROTOCOL.md and ../../protocol.json): every
message the agent sends is built here, and nowhere else."""

PROTOCOL = 1


def hello_reply(mid, language, version, pid, features=()):
    """`features`: what this agent can do beyond the base protocol (`pipe`: the fs operation of that name)."""
    hello = {'type': 'hello', 'id': mid, 'language': language, 'version': version, 'pid': pid, 'protocol': PROTOCOL}
    if features:
        hello['features'] = list(features)
    return hello


def stream_message(eid, name, text):
    return {'type': 'stream', 'id': eid, 'name': name, 'text': text}


def display_message(eid, mime, data, encoding):
    return {'type': 'display', 'id': eid, 'mime': mime, 'data': data, 'encoding': encoding}


def result_message(eid, text):
    return {'type': 'result', 'id': eid, 'text': text}


def error_message(eid, name, value, traceback):
    return {'type': 'error', 'id': eid, 'name': name, 'value': value, 'traceback': traceback}


def done_message(eid, status, duration_ms, dropped, files, files_truncated, strays, exit_code=None, oom_kills=0):
    """`done`: exitCode only in bash mode, oomKills only when the kernel killed something for memory."""
    done = {'type': 'done', 'id': eid, 'status': status, 'durationMs': duration_ms, 'dropped': dropped,
            'files': files, 'filesTruncated': files_truncated, 'straysKilled': strays}
    if exit_code is not None:
        done['exitCode'] = exit_code
    if oom_kills > 0:
        done['oomKills'] = oom_kills
    return done


def fs_data(mid, data):
    return {'type': 'fs-data', 'id': mid, 'data': data}


def fs_done(mid, size):
    return {'type': 'fs-done', 'id': mid, 'size': size}


def fs_list(mid, entries, truncated):
    return {'type': 'fs-list', 'id': mid, 'entries': entries, 'truncated': truncated}


def fs_usage(mid, used, total, free, file_bytes):
    return {'type': 'fs-usage', 'id': mid, 'usedBytes': used, 'totalBytes': total, 'freeBytes': free,
            'fileBytes': file_bytes}


def fs_error(mid, code, message):
    return {'type': 'fs-error', 'id': mid, 'code': code, 'message': message}


def fs_exit(mid, exit_code, stderr):
    return {'type': 'fs-exit', 'id': mid, 'exitCode': exit_code, 'stderr': stderr}


def reaped(mid, killed):
    return {'type': 'reaped', 'id': mid, 'killed': killed}
