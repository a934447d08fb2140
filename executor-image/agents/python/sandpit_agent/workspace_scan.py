"""The files an execution created or changed in the workspace (reported in `done`)."""

import codecs
import os

from .limits import MAX_WALK


_MOUNTS = {}  # root -> the mount points found under it (read once: see mount_points_under)


def mount_points_under(root):
    """Absolute paths of the file systems mounted below `root` (the session's shared folders), from
    /proc/self/mountinfo: the after-run scan leaves them out, so a large shared folder never hides the
    files a run made in the workspace, and its files are never walked at every run. Read once per root:
    the mounts of a container are fixed when it starts (a folder change starts a new one; the sandbox user
    may not mount, and a mount made in another mount namespace is not in this process's), and the kernel
    builds the file anew at every read (the slowest step of a run's scan when it was read twice per run)."""
    known = _MOUNTS.get(root)
    if known is not None:
        return known
    try:
        with open('/proc/self/mountinfo', 'rb') as f:
            raw = f.read()
    except OSError:
        return frozenset()
    found = set()
    prefix = root.rstrip('/') + '/'
    for line in raw.split(b'\n'):
        fields = line.split(b' ')
        if len(fields) < 5:
            continue
        encoded = fields[4]
        try:  # spaces, tabs, newlines and backslashes are written as \ooo
            path = os.fsdecode(codecs.escape_decode(encoded)[0])
        except (ValueError, UnicodeError):
            continue
        if path.startswith(prefix):
            found.add(path)
    found = frozenset(found)
    _MOUNTS[root] = found
    return found


def snapshot_files(root):
    """{relpath: (size, mtime_ns)} of regular files under `root` (no symlinks, nothing below another mount:
    shared folders are left out), and whether the walk was complete."""
    files, seen, stack = {}, 0, ['']
    mounts = mount_points_under(root)
    while stack:
        rel = stack.pop()
        try:
            with os.scandir(os.path.join(root, rel) if rel else root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_WALK:
                return files, False
            path = rel + '/' + entry.name if rel else entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not mounts or entry.path not in mounts:
                        stack.append(path)
                elif entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    files[path] = (st.st_size, st.st_mtime_ns)
            except OSError:
                pass
    return files, True
