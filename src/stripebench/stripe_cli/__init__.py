"""The Stripe CLI's habits, offline: `listen` forwards an account's events to a local URL,
signed like webhooks; `trigger` makes the API calls that cause an event. Both are clients
of the emulator's public API (with the account's secret key), as the Stripe CLI is of
Stripe's."""

import ast
from pathlib import Path


def trigger_events() -> list[str]:
    """The events `trigger` can cause: the keys of trigger.FIXTURES, read from its source
    (importing it loads the stripe SDK, over a second: too slow for `--help`)."""
    tree = ast.parse((Path(__file__).parent / "trigger.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.target.id == "FIXTURES" and isinstance(node.value, ast.Dict):
            return sorted(str(key.value) for key in node.value.keys
                          if isinstance(key, ast.Constant))
    return []
