"""Write scripted_partial.json: a replay for the scripted agent that answers half the pages.

    python make_partial.py      # regenerates solution/scripted_partial.json

The replay is one `bash` tool call running a small stdlib-only Python program that
holds the first half of the public seed's answers (catalog references by lookup key),
resolves them with the agent's key and writes submission.json. Graded, it scores 0.5:
full marks on the pages it answers, zero on the rest.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generate import DEFAULT_COUNT, PUBLIC_SEED, generate  # noqa: E402

PROGRAM = r'''
import json, os, urllib.request
base = os.environ.get("STRIPE_API_BASE", "https://api.stripe.com").rstrip("/")
def get(path):
    req = urllib.request.Request(base + path, headers={
        "Authorization": "Bearer " + os.environ["STRIPE_SECRET_KEY"]})
    return json.load(urllib.request.urlopen(req))["data"]
prices = {p["lookup_key"]: p["id"] for p in get("/v1/prices?limit=100") if p["lookup_key"]}
rates = {r["metadata"]["lookup"]: r["id"] for r in get("/v1/shipping_rates?limit=100")
         if "lookup" in (r.get("metadata") or {})}
def resolve(v):
    if isinstance(v, dict):
        if set(v) == {"lookup_key"}:
            return prices[v["lookup_key"]]
        if set(v) == {"shipping_rate_lookup"}:
            return rates[v["shipping_rate_lookup"]]
        return {k: resolve(x) for k, x in v.items()}
    if isinstance(v, list):
        return [resolve(x) for x in v]
    return v
answers = json.loads(ANSWERS)
with open("submission.json", "w") as f:
    json.dump({k: resolve(v) for k, v in answers.items()}, f, indent=2)
print("answered", len(answers), "pages")
'''


def replay() -> list[dict[str, object]]:
    half = {str(c["number"]): c["params"]
            for c in generate(PUBLIC_SEED, DEFAULT_COUNT)[: DEFAULT_COUNT // 2]}
    program = f"ANSWERS = {json.dumps(json.dumps(half))}\n" + PROGRAM.lstrip()
    command = f"python3 - <<'PY'\n{program}PY\n"
    return [{"tool": "bash", "args": {"command": command, "timeout": 60}}]


def main() -> None:
    (HERE / "scripted_partial.json").write_text(json.dumps(replay(), indent=2) + "\n")


if __name__ == "__main__":
    main()
