"""Host-side access to a workdir the agent controls, never following its links out.

The harness runs as root on the host and reads and writes files inside trial workdirs
(service logs, the grader's folder, the file tools, the submission's hashes). Any path
there may be a symlink the agent planted, a FIFO that blocks a reader forever or a
device; a check-then-open leaves a window for a swap. So every open here walks from an
open directory of the workdir:

- `symlinks=False` (the harness's own paths such as `.stripebench/logs`): no component
  may be a symlink at all;
- `symlinks=True` (the agent's own files, for the file tools): symlinks are followed
  only while they stay beneath the workdir (the kernel's `openat2(RESOLVE_BENEATH)`;
  without it, symlinks are refused).

Only regular files and directories are ever opened; FIFOs and devices are refused
without blocking (O_NONBLOCK), and no magic link (/proc/self/fd/N) is followed.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

_SYS_OPENAT2 = 437            # the same number on every Linux architecture
_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_NO_SYMLINKS = 0x04
_RESOLVE_BENEATH = 0x08
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64),
                ("resolve", ctypes.c_uint64)]


_libc = ctypes.CDLL(None, use_errno=True)
_openat2_works: bool | None = None


def _openat2(dir_fd: int, path: str, flags: int, mode: int, resolve: int) -> int | None:
    """openat2(2), or None where the kernel lacks it (then the caller walks by hand)."""
    global _openat2_works
    if _openat2_works is False:
        return None
    how = _OpenHow(flags | os.O_CLOEXEC, mode if flags & os.O_CREAT else 0, resolve)
    fd = _libc.syscall(_SYS_OPENAT2, dir_fd, os.fsencode(path), ctypes.byref(how),
                       ctypes.sizeof(how))
    if fd < 0:
        code = ctypes.get_errno()
        if code == errno.ENOSYS:
            _openat2_works = False  # an old kernel, or a seccomp filter without it
            return None
        raise OSError(code, os.strerror(code), path)
    _openat2_works = True
    return int(fd)


def parts_of(root: Path, path: str | os.PathLike[str]) -> list[str]:
    """`path` (relative to root, or absolute under it) as components below root."""
    pure = PurePosixPath(os.fspath(path))
    if pure.is_absolute():
        try:
            pure = pure.relative_to(PurePosixPath(root))
        except ValueError:
            raise OSError(errno.EXDEV, "outside the workdir", str(path)) from None
    parts = [p for p in pure.parts if p not in ("", ".")]
    return parts


def _walk_open(root_fd: int, parts: list[str], flags: int, mode: int) -> int:
    """Open root/parts[0]/... with no symlink anywhere (the fallback without openat2)."""
    if ".." in parts:
        raise OSError(errno.EXDEV, "'..' is not allowed here", "/".join(parts))
    fd = os.dup(root_fd)
    try:
        for name in parts[:-1]:
            next_fd = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = next_fd
        return os.open(parts[-1] if parts else ".", flags | os.O_NOFOLLOW | os.O_CLOEXEC,
                       mode, dir_fd=fd)
    finally:
        os.close(fd)


def open_in(root: Path, path: str | os.PathLike[str], flags: int, mode: int = 0o644, *,
            symlinks: bool = False) -> int:
    """An fd for `path` inside `root` (see the module's rules). Refuses anything that is
    not a regular file or directory."""
    parts = parts_of(root, path)
    root_fd = os.open(root, _DIR_FLAGS)
    try:
        resolve = _RESOLVE_BENEATH | _RESOLVE_NO_MAGICLINKS
        if not symlinks:
            resolve |= _RESOLVE_NO_SYMLINKS
        fd = _openat2(root_fd, "/".join(parts) or ".", flags | os.O_NONBLOCK, mode, resolve)
        if fd is None:
            fd = _walk_open(root_fd, parts, flags | os.O_NONBLOCK, mode)
    finally:
        os.close(root_fd)
    kind = os.fstat(fd).st_mode
    if not (stat.S_ISREG(kind) or stat.S_ISDIR(kind)):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
    os.set_blocking(fd, True)
    return fd


def makedirs_in(root: Path, path: str | os.PathLike[str], *, symlinks: bool = False) -> None:
    """mkdir -p of `path` inside root, each step checked like `open_in`."""
    parts = parts_of(root, path)
    for depth in range(1, len(parts) + 1):
        try:
            os.close(open_in(root, "/".join(parts[:depth]), _DIR_FLAGS, symlinks=symlinks))
            continue
        except FileNotFoundError:
            pass
        parent = open_in(root, "/".join(parts[:depth - 1]), _DIR_FLAGS, symlinks=symlinks)
        try:
            os.mkdir(parts[depth - 1], 0o755, dir_fd=parent)
        except FileExistsError:
            pass  # made meanwhile; the next open checks what it is
        finally:
            os.close(parent)
        os.close(open_in(root, "/".join(parts[:depth]), _DIR_FLAGS, symlinks=symlinks))


def read_in(root: Path, path: str | os.PathLike[str], *, limit: int | None = None,
            symlinks: bool = False) -> bytes:
    fd = open_in(root, path, os.O_RDONLY, symlinks=symlinks)
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", os.fspath(path))
        chunks, size = [], 0
        while limit is None or size < limit:
            chunk = os.read(fd, 1 << 20 if limit is None else min(1 << 20, limit - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_in(root: Path, path: str | os.PathLike[str], data: bytes, *,
             symlinks: bool = False) -> None:
    parts = parts_of(root, path)
    if len(parts) > 1:
        makedirs_in(root, "/".join(parts[:-1]), symlinks=symlinks)
    fd = open_in(root, path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, symlinks=symlinks)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def append_handle(root: Path, path: str | os.PathLike[str]) -> int:
    """An fd appending to a harness-owned file (a service log), created if missing."""
    parts = parts_of(root, path)
    makedirs_in(root, "/".join(parts[:-1]))
    return open_in(root, path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)


def tail_in(root: Path, path: str | os.PathLike[str], limit: int = 4000) -> str:
    """The last `limit` bytes of a harness-owned file, or "" if it cannot be read."""
    try:
        fd = open_in(root, path, os.O_RDONLY)
    except OSError:
        return ""
    try:
        size = os.fstat(fd).st_size
        os.lseek(fd, max(0, size - limit), os.SEEK_SET)
        return os.read(fd, limit).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def sha256_of(dir_fd: int, name: str, cap: int) -> tuple[str, int] | None:
    """(hex digest, size) of a regular file in an open directory, streamed, at most `cap`
    bytes read (a larger file's digest covers its size and its first `cap` bytes).
    None for anything that is not a regular file (symlink, FIFO, device, socket)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     dir_fd=dir_fd)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        digest = hashlib.sha256()
        left = cap
        while left > 0:
            chunk = os.read(fd, min(1 << 20, left))
            if not chunk:
                break
            digest.update(chunk)
            left -= len(chunk)
        if info.st_size > cap:
            digest.update(f"\0size={info.st_size}".encode())
        return digest.hexdigest(), info.st_size
    finally:
        os.close(fd)


def regular_files(root: Path, skip: set[str], limit: int) -> Iterator[tuple[str, int, str]]:
    """(relative path, directory fd, name) of up to `limit` entries below root, never
    entering a symlinked directory (os.fwalk works on directory fds)."""
    seen = 0
    for folder, dirs, names, dir_fd in os.fwalk(root):
        dirs[:] = [d for d in dirs if d not in skip]
        rel = os.path.relpath(folder, root)
        for name in names:
            if seen >= limit:
                return
            seen += 1
            yield (name if rel == "." else f"{rel}/{name}"), dir_fd, name


CAPABILITY_XATTR = "security.capability"
SETID = stat.S_ISUID | stat.S_ISGID


def clear_setid_bits(root: Path) -> list[str]:
    """Remove setuid/setgid bits and file capabilities from every regular file below
    root; returns what was cleared, one "path: what" line per file (tamper evidence).

    The agent is root inside its sandbox and owns what it creates, so `chmod u+s` needs
    no capability there; a service in a user namespace of its own can even write a file
    capability that the host honours. The sandbox mounts the workdir nosuid, so neither
    works inside -- but the workdir stays on the host afterwards, where such a file
    would make any local user root. Symlinks are never followed (each file is looked at
    through its open directory, and opened O_NOFOLLOW before it is changed)."""
    cleared = []
    for folder, _dirs, names, dir_fd in os.fwalk(root):
        rel = os.path.relpath(folder, root)
        for name in names:
            try:
                info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            setid = info.st_mode & SETID
            capability = _has_capability(dir_fd, name)
            if not setid and not capability:
                continue
            what = [kind for kind, present in (("setuid", info.st_mode & stat.S_ISUID),
                                               ("setgid", info.st_mode & stat.S_ISGID),
                                               ("file capabilities", capability)) if present]
            if _clear(dir_fd, name, capability):
                cleared.append(f"{name if rel == '.' else f'{rel}/{name}'}: {', '.join(what)}")
    return cleared


def _has_capability(dir_fd: int, name: str) -> bool:
    try:  # getxattr has no dir_fd form: reach the entry through the open directory
        os.getxattr(f"/proc/self/fd/{dir_fd}/{name}", CAPABILITY_XATTR,
                    follow_symlinks=False)
        return True
    except OSError:
        return False


def _clear(dir_fd: int, name: str, capability: bool) -> bool:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     dir_fd=dir_fd)
    except OSError:
        return False
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            return False
        if capability:
            try:
                os.removexattr(fd, CAPABILITY_XATTR)
            except OSError:
                pass  # gone meanwhile
        if mode & SETID:  # (writing xattrs may already have dropped them)
            os.fchmod(fd, stat.S_IMODE(mode) & ~SETID)
        return True
    finally:
        os.close(fd)
