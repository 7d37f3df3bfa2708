"""The submission's file list: what the agent added, changed and deleted against the
task's environment, kept in the trial's record. Hashes are bounded: a file the agent
made huge, a FIFO or a symlink cannot stall the harness."""

from __future__ import annotations

from pathlib import Path

from ..sandbox import safe_files
from .interventions import SKILLS_DIR

# Installed packages and build output (.go: a Go task's build cache and binaries;
# target: Maven's).
SKIP_IN_DIFF = {".stripebench", "node_modules", "__pycache__", ".git", ".venv", ".deps", ".go",
                "target", SKILLS_DIR}
# The submission's file list: how much of each file is hashed (a bigger one is known by
# its size and first bytes) and how many files are listed at most.
HASH_CAP_BYTES = 8 * 1024 * 1024
DIFF_FILE_LIMIT = 20_000


def _file_digests(root: Path) -> dict[str, str]:
    """Regular files below root -> digest. Streams each file and reads at most
    HASH_CAP_BYTES of it; symlinks, FIFOs and devices are skipped unopened."""
    digests = {}
    for rel, dir_fd, name in safe_files.regular_files(root, SKIP_IN_DIFF, DIFF_FILE_LIMIT):
        found = safe_files.sha256_of(dir_fd, name, HASH_CAP_BYTES)
        if found is not None:
            digests[rel] = found[0]
    return digests


def submission_changes(environment: Path, workdir: Path) -> dict[str, list[str]]:
    before = _file_digests(environment) if environment.is_dir() else {}
    after = _file_digests(workdir)
    return {"added": sorted(set(after) - set(before)),
            "modified": sorted(p for p in set(after) & set(before) if after[p] != before[p]),
            "deleted": sorted(set(before) - set(after))}
