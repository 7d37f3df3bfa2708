"""Mutants and alternatives: the reference solution with an overlay.

    solution/mutants/<name>/mutant.toml            requirement, loses, why, delete
    solution/alternatives/<name>/alternative.toml  why, delete
    + files overlaid onto solution/ at the same relative path (replace or add)

A variant's solution folder is the reference (without mutants/ and alternatives/), less
the files named in `delete`, plus the overlay.
"""

from __future__ import annotations

import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .requirements import ProofError, RequirementTable

KINDS = {"mutant": "mutants", "alternative": "alternatives"}
VARIANT_FOLDERS = tuple(KINDS.values())  # never part of a solution folder
_KEYS = {"mutant": {"requirement", "loses", "why", "delete"},
         "alternative": {"why", "delete"}}


@dataclass(frozen=True)
class Variant:
    kind: str  # "mutant" | "alternative"
    name: str
    path: Path
    why: str
    requirement: str = ""
    loses: tuple[str, ...] = ()
    delete: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.kind}/{self.name}"

    @property
    def manifest(self) -> str:
        return f"{self.kind}.toml"


def _strings(raw: object) -> tuple[str, ...] | None:
    if isinstance(raw, list) and all(isinstance(x, str) for x in raw):
        return tuple(raw)
    return None


def _load(kind: str, folder: Path) -> Variant:
    manifest = folder / f"{kind}.toml"
    where = f"{KINDS[kind]}/{folder.name}"
    if not manifest.is_file():
        return Variant(kind, folder.name, folder, "", problems=(f"{where}: no {kind}.toml",))
    try:
        data = tomllib.loads(manifest.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ProofError(f"{where}/{kind}.toml: {exc}") from None
    problems = [f"{where}: unknown key {k!r}" for k in data if k not in _KEYS[kind]]
    loses, delete = _strings(data.get("loses", [])), _strings(data.get("delete", []))
    if loses is None:
        problems.append(f"{where}: loses must be a list of check names")
    if delete is None:
        problems.append(f"{where}: delete must be a list of paths")
    for rel in delete or ():
        parts = PurePosixPath(rel).parts
        if not rel or rel.startswith("/") or ".." in parts or (parts and parts[0] in
                                                                 VARIANT_FOLDERS):
            problems.append(f"{where}: delete {rel!r} is not a path inside solution/")
    why = data.get("why")
    if not isinstance(why, str) or not why.strip():
        problems.append(f"{where}: `why` must say what differs from the reference")
    return Variant(kind, folder.name, folder, why if isinstance(why, str) else "",
                   requirement=str(data.get("requirement", "")), loses=loses or (),
                   delete=delete or (), problems=tuple(problems))


def load_variants(task_dir: Path) -> list[Variant]:
    """Every mutant, then every alternative, each sorted by name."""
    found = []
    for kind, folder in KINDS.items():
        root = Path(task_dir) / "solution" / folder
        if root.is_dir():
            found += [_load(kind, p) for p in sorted(root.iterdir()) if p.is_dir()]
    return found


def validate_variants(table: RequirementTable, variants: list[Variant]) -> list[str]:
    """Manifests that name what exists; one mutant per checkable requirement at least;
    two alternatives at least."""
    problems = [p for v in variants for p in v.problems]
    requirements = table.by_id()
    mutants = [v for v in variants if v.kind == "mutant" and not v.problems]
    for mutant in mutants:
        requirement = requirements.get(mutant.requirement)
        if requirement is None:
            problems.append(f"{mutant.label}: requirement {mutant.requirement!r} is not in "
                            "tests/requirements.toml")
            continue
        if not mutant.loses:
            problems.append(f"{mutant.label}: loses names no check")
        problems += [f"{mutant.label}: loses {c!r}, which is not a check of requirement "
                     f"{requirement.id}" for c in mutant.loses if c not in requirement.checks]
    broken = {m.requirement for m in mutants}
    problems += [f"requirement {r.id} has no mutant" for r in table.requirements
                 if r.checks and r.id not in broken]
    alternatives = [v for v in variants if v.kind == "alternative" and not v.problems]
    if len(alternatives) < 2:
        problems.append(f"{len(alternatives)} alternative(s): a task needs at least two")
    return problems


def reference_copy(solution: Path, target: Path) -> None:
    """The reference solution without its mutants/ and alternatives/."""
    def ignore(folder: str, names: list[str]) -> set[str]:
        return set(VARIANT_FOLDERS) & set(names) if Path(folder) == solution else set()

    shutil.copytree(solution, target, symlinks=True, ignore=ignore, dirs_exist_ok=True)


def build_solution(variant: Variant, solution: Path, target: Path) -> Path:
    """The variant's solution folder at `target`: reference - delete + overlay."""
    if target.exists():
        shutil.rmtree(target)
    reference_copy(solution, target)
    for rel in variant.delete:
        path = target / rel
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
        else:
            raise ProofError(f"{variant.label}: delete {rel!r}: no such file in solution/")
    for source in sorted(variant.path.rglob("*")):
        inside = source.relative_to(variant.path)
        if inside.as_posix() == variant.manifest or source.is_dir():
            continue
        dest = target / inside
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.is_dir() and not dest.is_symlink():
            shutil.rmtree(dest)
        shutil.copy2(source, dest, follow_symlinks=False)
    return target
