"""Connecting, from the host, to a unix socket that a sandbox created.

Sockets that carry traffic into a trial's sandbox live in a folder the sandbox can write
(its relays, running like the agent's code, create them). Connecting by path would
follow a symlink the agent put there instead: to the Docker socket, say, reached as the
harness's user. So the path is opened without following (O_PATH | O_NOFOLLOW), checked
to be a socket, and connected through that open file (/proc/self/fd/N): no window for a
swap between the check and the connect.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def pinned_socket_path(path: str) -> Iterator[str]:
    """A path that reaches exactly the socket now at `path` (never a symlink's target),
    valid inside the `with` block."""
    fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        if not stat.S_ISSOCK(os.fstat(fd).st_mode):
            raise OSError(errno.ENOTSOCK, "not a unix socket (a symlink or file planted "
                          "there is never followed)", path)
        yield f"/proc/self/fd/{fd}"
    finally:
        os.close(fd)
