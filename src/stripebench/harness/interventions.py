"""Interventions: what one arm of an experiment changes, one thing at a time.

`stripebench run` takes a replaced system prompt, an addendum to it, a directory of
skills, a subset of the tools and an alternative documentation corpus, plus a label for
the arm. Each is copied into the run directory (`interventions/`) when the run starts and
recorded in run.json with a content hash, so a run says exactly what it tested and a
resumed run must ask for the same thing. `stripebench compare` reads the records
(rundir.describe) to say what differs between two arms.
"""

from __future__ import annotations

import fnmatch
import hashlib
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..docs.guide_pages import guide_files
from ..docs.index import DOCS_MODES, corpus_index
from ..rundir.layout import INTERVENTIONS as COPIES  # in the run directory
from .tools.toolbox import SPECS

ALL_TOOLS = tuple(s.name for s in SPECS)
SKILLS_DIR = ".skills"  # in the trial's workdir
SKILL_FILES_LISTED = 50


class InterventionError(ValueError):
    pass


def parse_tools(spec: str) -> tuple[str, ...]:
    """`bash,view,submit` (only those), `-browser*` (all but those) or a mix; shell-style
    patterns allowed. Every item must match a tool: a typo is an error, not a no-op."""
    items = [item.strip() for item in spec.split(",") if item.strip()]
    if not items:
        raise InterventionError("--tools needs tool names, e.g. bash,view,submit or "
                                "-browser*")
    keep = [i for i in items if not i.startswith("-")]
    drop = [i[1:] for i in items if i.startswith("-")]
    for pattern in keep + drop:
        if not fnmatch.filter(ALL_TOOLS, pattern):
            raise InterventionError(f"--tools: no tool matches {pattern!r}; tools: "
                                    f"{', '.join(ALL_TOOLS)}")
    chosen = [t for t in ALL_TOOLS if any(fnmatch.fnmatchcase(t, p) for p in keep)] \
        if keep else list(ALL_TOOLS)
    chosen = [t for t in chosen if not any(fnmatch.fnmatchcase(t, p) for p in drop)]
    if not chosen:
        raise InterventionError(f"--tools {spec!r} leaves no tool")
    return tuple(chosen)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _tree_sha(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise InterventionError(f"{what} {path}: {exc}") from None


@dataclass
class Interventions:
    """The arm's changes; empty means the benchmark's defaults."""

    label: str | None = None
    system_prompt: str | None = None  # replaces prompts/system.md
    system_prompt_file: str | None = None
    addendum: str | None = None  # appended to the system prompt
    addendum_file: str | None = None
    skills: Path | None = None
    tools: tuple[str, ...] | None = None  # None: every tool
    docs: Path | None = None
    docs_mode: str = "overlay"
    # set by prepare(): the run's own copies
    skills_copy: Path | None = field(default=None, compare=False)
    docs_index: Path | None = field(default=None, compare=False)

    @classmethod
    def from_options(cls, label: str | None = None, system_prompt: Path | None = None,
                     addendum: Path | None = None, skills: Path | None = None,
                     tools: str | None = None, docs: Path | None = None,
                     docs_mode: str = "overlay") -> Interventions:
        if skills is not None and not skills.is_dir():
            raise InterventionError(f"--skills {skills}: not a directory")
        if skills is not None and not any(p.is_file() for p in skills.rglob("*")):
            raise InterventionError(f"--skills {skills}: holds no files")
        if docs_mode not in DOCS_MODES:
            raise InterventionError(f"--docs-mode must be one of {', '.join(DOCS_MODES)}")
        if docs is not None and not (docs.is_dir() and sorted(docs.glob("*.md"))):
            raise InterventionError(f"--docs {docs}: not a directory of guide .md files")
        return cls(label=label,
                   system_prompt=_read(system_prompt, "--system-prompt") if system_prompt
                   else None, system_prompt_file=str(system_prompt) if system_prompt else None,
                   addendum=_read(addendum, "--system-prompt-addendum") if addendum else None,
                   addendum_file=str(addendum) if addendum else None,
                   skills=skills.resolve() if skills else None,
                   tools=parse_tools(tools) if tools is not None else None,
                   docs=docs.resolve() if docs else None, docs_mode=docs_mode)

    @property
    def touches_system_prompt(self) -> bool:
        return self.system_prompt is not None or self.addendum is not None

    @property
    def restricted_tools(self) -> tuple[str, ...] | None:
        return self.tools if self.tools is not None and set(self.tools) != set(ALL_TOOLS) \
            else None

    # ------------------------------------------------------------------ run start

    def record(self) -> dict[str, Any]:
        """What run.json keeps (content hashes: a file edited later does not pass for the
        one this run used)."""
        out: dict[str, Any] = {}
        if self.system_prompt is not None:
            out["system_prompt"] = {"file": self.system_prompt_file,
                                    "sha256": _sha(self.system_prompt.encode())}
        if self.addendum is not None:
            out["system_prompt_addendum"] = {"file": self.addendum_file,
                                             "sha256": _sha(self.addendum.encode())}
        if self.skills is not None:
            out["skills"] = {"dir": str(self.skills), "sha256": _tree_sha(self.skills),
                             "files": sorted(str(p.relative_to(self.skills))
                                             for p in self.skills.rglob("*") if p.is_file())}
        if self.restricted_tools is not None:
            out["tools"] = list(self.restricted_tools)
            # what "without ..." is measured against when the record is read back
            out["tools_offered"] = list(ALL_TOOLS)
        if self.docs is not None:
            own = sorted(p.name for p in self.docs.glob("*.md"))
            packaged = {p.name for p in guide_files()}
            out["docs"] = {"dir": str(self.docs), "mode": self.docs_mode,
                           "sha256": _tree_sha_md(self.docs),
                           "replaced": [n for n in own if n in packaged],
                           "added": [n for n in own if n not in packaged]}
        return out

    def prepare(self, out: Path) -> dict[str, Any]:
        """Copy the inputs into the run directory, build the docs index; the record."""
        folder = out / COPIES
        if self.system_prompt is not None or self.addendum is not None \
                or self.skills is not None or self.docs is not None:
            folder.mkdir(parents=True, exist_ok=True)
        if self.system_prompt is not None:
            (folder / "system_prompt.md").write_text(self.system_prompt)
        if self.addendum is not None:
            (folder / "system_prompt_addendum.md").write_text(self.addendum)
        if self.skills is not None:
            self.skills_copy = folder / "skills"
            if not self.skills_copy.exists():
                shutil.copytree(self.skills, self.skills_copy, symlinks=False)
        if self.docs is not None:
            copy = folder / "docs"
            if not copy.exists():
                copy.mkdir()
                for path in sorted(self.docs.glob("*.md")):
                    shutil.copy(path, copy / path.name)
            self.docs_index = docs_index(copy, self.docs_mode)
        return self.record()

    # ------------------------------------------------------------------ per trial

    def install_skills(self, workdir: Path) -> list[str]:
        """Put the skills in the trial's workdir (`.skills/`); their paths there."""
        source = self.skills_copy or self.skills
        if source is None:
            return []
        target = workdir / SKILLS_DIR
        if target.exists():
            raise InterventionError(f"the task's environment already has {SKILLS_DIR}/; "
                                    "--skills would mix with it")
        shutil.copytree(source, target, symlinks=False)
        files = sorted(p for p in target.rglob("*") if p.is_file())
        for path in files:
            path.chmod(0o444)
        return [f"{SKILLS_DIR}/{p.relative_to(target)}" for p in files]

    def prompt_note(self, workdir: Path, shown: Path, skill_files: list[str]) -> str:
        """Text added to the task prompt: where the skills are (`shown`: the workdir as
        the agent sees it) and what each is."""
        if not skill_files:
            return ""
        lines = []
        for rel in skill_files[:SKILL_FILES_LISTED]:
            about = skill_summary(workdir / rel)
            lines.append(f"- `{rel}`" + (f": {about}" if about else ""))
        if len(skill_files) > SKILL_FILES_LISTED:
            lines.append(f"- ... and {len(skill_files) - SKILL_FILES_LISTED} more under "
                         f"`{SKILLS_DIR}/`")
        return ("\nSkills: reference material for this kind of work is in "
                f"`{shown / SKILLS_DIR}` (read it with `view` or `bash`; it is not part "
                "of your result):\n" + "\n".join(lines) + "\n")

    def toolbox_options(self) -> dict[str, Any]:
        """Keyword arguments for the trial's Toolbox (and, as JSON, its mcp.json)."""
        options: dict[str, Any] = {}
        if self.restricted_tools is not None:
            options["tools"] = list(self.restricted_tools)
        if self.docs_index is not None:
            options["docs_index"] = str(self.docs_index)
        return options


def _tree_sha_md(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(root.glob("*.md")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def skill_summary(path: Path) -> str:
    """A skill's one-line description: `description:` front matter, else its first
    Markdown heading, else nothing."""
    try:
        text = path.read_text()[:4000]
    except (OSError, UnicodeDecodeError):
        return ""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        for line in lines[1:]:
            if line.strip() == "---":
                break
            if line.lower().startswith("description:"):
                return line.split(":", 1)[1].strip().strip("\"'")[:200]
    for line in lines:
        if line.startswith("#"):
            return line.lstrip("#").strip()[:200]
    return ""


def docs_index(folder: Path, mode: str) -> Path:
    """The index for a run's documentation corpus (docs.index.corpus_index)."""
    try:
        return corpus_index(folder, mode)
    except ValueError as exc:  # two guides with one id, and the like
        raise InterventionError(f"--docs {folder}: {exc}") from None


def system_text(default: str, iv: Interventions) -> str:
    """The system prompt of an arm: replaced or default, a note on a reduced tool set,
    then the addendum."""
    text = iv.system_prompt if iv.system_prompt is not None else default
    if iv.restricted_tools is not None:
        text = (text.rstrip() + "\n\nIn this run you have only these tools: "
                + ", ".join(f"`{t}`" for t in iv.restricted_tools)
                + ". Any other tool mentioned above is not available.\n")
    if iv.addendum is not None:
        text = text.rstrip() + "\n\n" + iv.addendum.strip() + "\n"
    return text
