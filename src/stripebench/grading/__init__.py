"""Helpers every task grader (tests/) imports.

    from stripebench.grading import Grader, stripe_client, workdir

    g = Grader()
    client = stripe_client()
    g.check("session_paid", 2, lambda: client.v1.checkout.sessions.retrieve(sid).status
            == "complete")
    g.check("no_collateral", 1, lambda: not collateral_changes(seed_snapshot(),
                                                               final_snapshot()))
    g.write()        # reward.json: {"total": weighted mean, "subscores": {...}}

A check passes a bool or a float in [0, 1]; an exception scores 0 and its message is kept
in reward.json, so a grader never crashes on a broken submission.
"""

from . import launch
from .checks import Grader
from .environment import (
    final_snapshot,
    fixtures,
    reward_path,
    seed_snapshot,
    stripe_client,
    workdir,
)
from .projections import canonical, collateral_changes, objects_of, state

__all__ = ["Grader", "canonical", "collateral_changes", "final_snapshot", "fixtures",
           "launch", "objects_of", "reward_path", "seed_snapshot", "state", "stripe_client",
           "workdir"]
