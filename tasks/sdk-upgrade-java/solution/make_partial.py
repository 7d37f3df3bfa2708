"""Write scripted_partial.json: a replay for the scripted agent that upgrades only the
payments service.

    python make_partial.py      # regenerates solution/scripted_partial.json

The three services are one Maven project, and the old code of invoices and subscriptions
does not compile against stripe-java 33 (the fields it reads are gone from the typed
models), so "payments only" means what a hurried port does: pom.xml on 33.3.0, payments
(and the shared Api.java) rewritten as in the reference, and invoices and subscriptions
(partial/) kept on API version 2020-08-27 through RequestOptions' unsafe version override,
reading the removed fields from each answer's JSON. Step 1 records the starter payments
service's JSON for the seeded customer (stripe-java 20 builds and runs in the sandbox);
step 2 makes that port, builds it offline, starts payments on a spare port and records
the same endpoint again. Graded, it scores 1/3: payments passes, while invoices and
subscriptions still send API version 2020-08-27.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
CODE = "src/main/java/backoffice"

RECORD = r'''
import json, os, sys, urllib.parse, urllib.request
base = os.environ["STRIPE_API_BASE"].rstrip("/")
query = urllib.parse.urlencode({"email": "katherine@example.com"})
request = urllib.request.Request(f"{base}/v1/customers?{query}", headers={
    "Authorization": "Bearer " + os.environ["STRIPE_SECRET_KEY"]})
customer = json.load(urllib.request.urlopen(request))["data"][0]["id"]
service = sys.argv[2] if len(sys.argv) > 2 else os.environ["PAYMENTS_URL"]
body = json.load(urllib.request.urlopen(f"{service}/customers/{customer}/payments"))
with open(sys.argv[1], "w") as out:
    json.dump(body, out, indent=2, sort_keys=True)
print(sys.argv[1], body["count"], "payments")
'''

UPGRADE = r'''set -euo pipefail
sed -i 's|<version>20.136.0</version>|<version>33.3.0</version>|' pom.xml
{files}bash build.sh
port="$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
PORT="$port" bash run.sh payments > /tmp/payments-upgraded.log 2>&1 &
pid=$!
for _ in $(seq 300); do
  python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/healthz')" 2>/dev/null && break
  sleep 0.1
done
python - after.json "http://127.0.0.1:$port" <<'PYEOF'
{record}PYEOF
kill "$pid"
'''


def _write(path: str, text: str) -> str:
    return f"cat > {path} <<'JAVAEOF'\n{text}JAVAEOF\n"


def replay() -> list[dict[str, object]]:
    sources = {name: HERE / "src" / "main" / "java" / "backoffice" / name
               for name in ("Api.java", "Payments.java")}
    sources.update({name: HERE / "partial" / name
                    for name in ("Invoices.java", "Subscriptions.java")})
    files = "".join(_write(f"{CODE}/{name}", path.read_text())
                    for name, path in sources.items())
    record = RECORD.lstrip("\n")
    return [
        {"tool": "bash", "args": {"command": f"python - before.json <<'PYEOF'\n{record}PYEOF\n"}},
        {"tool": "bash", "args": {"command": UPGRADE.format(files=files, record=record)}},
    ]


if __name__ == "__main__":
    (HERE / "scripted_partial.json").write_text(json.dumps(replay(), indent=2) + "\n")
    print("wrote", HERE / "scripted_partial.json")
