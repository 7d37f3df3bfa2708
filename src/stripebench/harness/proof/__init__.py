"""Graders proven requirement by requirement (issue 26, docs/tasks.md "Proof").

- `markdown`: the instruction as plain words (what requirement texts are compared with);
- `requirements`: `tests/requirements.toml`, validated against the instruction and the
  oracle's reward;
- `variants`: `solution/mutants/*` and `solution/alternatives/*`, each built into a
  solution folder of its own;
- `verdicts`: what a mutant and an alternative must score;
- `runs`: each variant as one oracle trial through the ordinary trial path;
- `table`: the per-task table `stripebench tasks check` prints.
"""

from .requirements import RequirementTable, load_requirements, validate_requirements
from .variants import Variant, build_solution, load_variants, validate_variants
from .verdicts import Verdict, judge

__all__ = ["RequirementTable", "Variant", "Verdict", "build_solution", "judge",
           "load_requirements", "load_variants", "validate_requirements",
           "validate_variants"]
