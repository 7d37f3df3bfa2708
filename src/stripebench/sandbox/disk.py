"""The workdir's disk quota: a filesystem of its own, with a fixed size and inode count.

A trial's workdir is the one folder its code writes that outlives it (the grader reads
it, the trial keeps it). Everything runs as root, so no per-user quota applies; instead
the workdir is an ext4 image (sparse: it takes on disk what is written, at most its
size) mounted at the workdir's path, `nosuid,nodev`, for the trial's life. Writing past
its size or its inode count fails inside (ENOSPC) and harms no one else. At the end
`release` copies what is there into a plain folder at the same path (set-id bits and
file capabilities are not carried over) and deletes the image.

Without root, `mount`, a loop device or `mkfs.ext4` the quota cannot be made:
`WorkdirDisk.create` raises `DiskUnavailable` saying why, and the trial records that its
workdir was unbounded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .limits import Limits, size_text

IMAGE_SUFFIX = ".disk.img"
# Free space below which the disk counts as full: ext4 refuses a write while it still
# holds back room for the file's metadata (a 1 MiB write fails with ~350 KiB free), so
# "full" is less than 1 MiB or 1% of the quota left, whichever is more.
FULL_SLACK_BYTES = 1024 * 1024
FULL_SLACK_SHARE = 0.01


class DiskUnavailable(RuntimeError):
    """No size-capped filesystem can be made here (the message says why)."""


@dataclass
class WorkdirDisk:
    workdir: Path
    image: Path
    limits: Limits

    @classmethod
    def create(cls, workdir: Path, limits: Limits) -> WorkdirDisk:
        """Mount a fresh, empty quota filesystem at `workdir` (made if missing; it must be
        empty). Raises DiskUnavailable."""
        if os.geteuid() != 0:
            raise DiskUnavailable("mounting a filesystem image needs root")
        for tool in ("mkfs.ext4", "mount", "umount"):
            if shutil.which(tool) is None:
                raise DiskUnavailable(f"{tool} is not installed")
        workdir.mkdir(parents=True, exist_ok=True)
        if any(workdir.iterdir()):
            raise DiskUnavailable(f"{workdir} is not empty")
        image = workdir.with_name(workdir.name + IMAGE_SUFFIX)
        try:
            with open(image, "wb") as handle:
                handle.truncate(limits.workdir_bytes)
            _run(["mkfs.ext4", "-q", "-F", "-m", "0", "-O", "^has_journal",
                  "-N", str(limits.workdir_inodes), "-E", "root_owner=0:0", str(image)])
            _run(["mount", "-o", "loop,nosuid,nodev", str(image), str(workdir)])
        except (OSError, DiskUnavailable) as exc:
            image.unlink(missing_ok=True)
            raise DiskUnavailable(f"the workdir's filesystem could not be made: {exc}"
                                  ) from None
        lost = workdir / "lost+found"
        if lost.is_dir():
            lost.rmdir()
        workdir.chmod(0o755)
        return cls(workdir, image, limits)

    def full(self) -> str | None:
        """Why the disk is full (bytes or inodes), or None."""
        try:
            info = os.statvfs(self.workdir)
        except OSError:
            return None
        slack = max(FULL_SLACK_BYTES, int(self.limits.workdir_bytes * FULL_SLACK_SHARE))
        if info.f_bavail * info.f_frsize < slack:
            return f"disk: the workdir filled its {size_text(self.limits.workdir_bytes)}"
        if info.f_favail == 0:
            return f"disk: the workdir used all its {self.limits.workdir_inodes} files"
        return None

    def mounted(self) -> bool:
        return os.path.ismount(self.workdir)

    def release(self) -> None:
        """Replace the mount by a plain folder holding a copy of its files; delete the
        image. Every process writing there must be gone."""
        if not self.mounted():
            self.image.unlink(missing_ok=True)
            return
        copy = self.workdir.with_name(self.workdir.name + ".copy")
        if copy.exists():
            shutil.rmtree(copy)
        copy.mkdir()
        # cp -a keeps links, FIFOs and modes without following or opening any of them;
        # neither ownership nor xattrs (file capabilities) nor set-id bits are carried.
        done = subprocess.run(["cp", "-dR", "--preserve=mode,timestamps", "--no-preserve=xattr",
                               f"{self.workdir}/.", str(copy)], capture_output=True, text=True)
        if done.returncode != 0:  # partial copies are kept: say what went wrong below
            (copy / ".stripebench-copy-errors.txt").write_text(done.stderr[-20_000:])
        unmount(self.workdir)
        self.workdir.rmdir()
        copy.rename(self.workdir)
        self.image.unlink(missing_ok=True)


def unmount(path: Path) -> None:
    """Unmount `path` (lazily if something still holds it open)."""
    done = subprocess.run(["umount", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, text=True)


def release_leftover(workdir: Path) -> None:
    """A trial interrupted (kill -9) left its quota mounted: unmount it and drop the
    image, so the trial folder can be removed and made again."""
    if os.path.ismount(workdir):
        unmount(workdir)
    workdir.with_name(workdir.name + IMAGE_SUFFIX).unlink(missing_ok=True)


def _run(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise DiskUnavailable(f"{argv[0]} failed: {done.stderr.strip()[-500:]}")
