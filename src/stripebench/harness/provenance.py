"""What a run was, for run.json's `provenance`: the code (stripebench version, git commit
and whether the checkout had uncommitted changes), the tasks (version and a hash of each
task's files), the docs guides' hash, the emulator's API version, the SDKs, the sandbox
kind and the toolchains a trial may use. Two runs whose provenance differs are not the
same benchmark: `report` and `compare` say so (rundir/provenance.py).

Everything here is read at run time, in well under a second; a tool that is missing is
recorded as missing, never guessed.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path
from typing import Any

from .. import __version__
from ..docs import guide_pages
from ..emulator.versions import LATEST
from .task import Task

CHECKOUT = Path(__file__).resolve().parents[3]
SKIPPED_DIRS = {"node_modules", "__pycache__", ".venv", "target", ".next"}
PYTHON_PACKAGES = ("stripe", "openai", "anthropic", "playwright")
TOOLS = {  # name -> the command printing its version
    "chromium": ["chromium", "--version"],
    "node": ["node", "--version"],
    "java": ["javac", "-version"],
    "go": ["go", "version"],
    "bwrap": ["bwrap", "--version"],
    "postgres": ["pg_ctl", "--version"],
}


def tree_hash(root: Path) -> str:
    """sha256 over every file's relative path and bytes (caches and builds left out)."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_dir() or SKIPPED_DIRS & set(relative.parts):
            continue
        digest.update(str(relative).encode() + b"\0")
        try:
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        except OSError:
            digest.update(b"unreadable")
    return digest.hexdigest()


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(CHECKOUT), *args], capture_output=True,
                              text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def code() -> dict[str, Any]:
    commit = _git("rev-parse", "HEAD") if (CHECKOUT / ".git").exists() else None
    dirty = None
    if commit is not None:
        status = _git("status", "--porcelain", "--untracked-files=no", "--", "src", "tasks")
        dirty = bool(status) if status is not None else None
    return {"stripebench": __version__, "commit": commit, "dirty": dirty}


def tool_version(command: list[str]) -> str | None:
    if command[0] == "pg_ctl":  # Debian keeps it out of PATH
        found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
        if not found:
            return None
        command = [str(found[-1]), *command[1:]]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=15)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout + done.stderr).strip().splitlines()
    if done.returncode != 0 or not text:
        return None
    match = re.search(r"\d+(\.\d+)+", text[0])
    return match.group(0) if match else text[0][:80]


def tools() -> dict[str, str | None]:
    """Versions of the toolchains trials use (None: not installed), asked in parallel."""
    with ThreadPoolExecutor(len(TOOLS)) as pool:
        found = dict(zip(TOOLS, pool.map(tool_version, TOOLS.values()), strict=True))
    return found


def sdks() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in PYTHON_PACKAGES:
        try:
            versions[f"python:{name}"] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[f"python:{name}"] = None
    package = CHECKOUT / "node_modules" / "stripe" / "package.json"
    try:
        match = re.search(r'"version"\s*:\s*"([^"]+)"', package.read_text())
        versions["node:stripe"] = match.group(1) if match else None
    except OSError:
        versions["node:stripe"] = None
    return versions


def tasks(chosen: list[Task]) -> dict[str, dict[str, Any]]:
    return {task.id: {"version": task.version, "sha256": tree_hash(task.path)}
            for task in chosen}


def collect(chosen: list[Task], sandbox: str, options: dict[str, Any]) -> dict[str, Any]:
    """The provenance of a run about to start."""
    return {
        **code(),
        "tasks": tasks(chosen),
        "gym_seed": os.environ.get("STRIPEBENCH_GYM_SEED") or "public",
        # the corpus the docs search serves (guides and fidelity notes, as indexed)
        "docs_guides_sha256": guide_pages.corpus_hash(),
        "emulator_api_version": LATEST,
        "sdks": sdks(),
        "sandbox": sandbox,
        "sealed": sandbox != "local",
        "tools": tools(),
        "options": options,
    }
