"""Write scripted_partial.json: a replay for the scripted agent that upgrades only the
payments service.

    python make_partial.py      # regenerates solution/scripted_partial.json

Step 1 records the starter payments service's JSON for the seeded customer (stripe-go
v72 builds and runs in the sandbox); step 2 adds stripe-go v85 to go.mod with `go get`
(offline, from the module cache; v72 stays for the other two services), replaces
services/payments/main.go with the reference one, builds and starts it on a spare port
and records the same endpoint again. Graded, it scores 1/3: payments passes, while
invoices and subscriptions still run their v72 code at API version 2020-08-27.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

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
. ./goenv.sh
go get github.com/stripe/stripe-go/v85@v85.0.0
cat > services/payments/main.go <<'GOEOF'
{payments}GOEOF
go mod tidy
port="$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
PORT="$port" bash run.sh payments > /tmp/payments-upgraded.log 2>&1 &
pid=$!
for _ in $(seq 2000); do
  python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/healthz')" 2>/dev/null && break
  sleep 0.1
done
python - after.json "http://127.0.0.1:$port" <<'PYEOF'
{record}PYEOF
kill "$pid"
'''


def replay() -> list[dict[str, object]]:
    payments = (HERE / "services" / "payments" / "main.go").read_text()
    record = RECORD.lstrip("\n")
    return [
        {"tool": "bash", "args": {"command": f"python - before.json <<'PYEOF'\n{record}PYEOF\n"}},
        # The first build of stripe-go v85 takes minutes on a busy machine.
        {"tool": "bash", "args": {"command": UPGRADE.format(payments=payments, record=record),
                                  "timeout": 600}},
    ]


if __name__ == "__main__":
    (HERE / "scripted_partial.json").write_text(json.dumps(replay(), indent=2) + "\n")
    print("wrote", HERE / "scripted_partial.json")
