"""Memory kills in the container, counted from its memory cgroup."""

import os


class OomCounter:
    """How many processes the kernel has killed in this container for memory (cgroup v1 memory.oom_control
    or v2 memory.events, `oom_kill N`), read through a file kept open. An OOM-killed child leaves the agent
    alive, and the engine's `oom` event can arrive after `done`: this count cannot."""

    def __init__(self):
        self.file = None

    def count(self):
        for _ in range(2):
            if self.file is None:
                for path in ('/sys/fs/cgroup/memory/memory.oom_control', '/sys/fs/cgroup/memory.events'):
                    try:
                        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                    except OSError:
                        continue
                    st = os.fstat(fd)
                    self.file = (fd, (st.st_dev, st.st_ino))
                    break
                if self.file is None:
                    return 0
            try:
                fd, ident = self.file
                st = os.fstat(fd)  # user code may have closed our fd, and its number been reused
                if (st.st_dev, st.st_ino) != ident:
                    raise OSError('not the cgroup file')
                text = os.pread(fd, 512, 0)
            except OSError:
                self.file = None  # not closed: the number may be user code's file by now
                continue
            for line in text.split(b'\n'):
                name, _, value = line.partition(b' ')
                if name == b'oom_kill' and value.strip().isdigit():
                    return int(value)
            return 0
        return 0
