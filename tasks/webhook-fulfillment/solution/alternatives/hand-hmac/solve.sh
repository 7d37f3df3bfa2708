#!/usr/bin/env bash
# Alternative: the reference's app with a hand-written signature check; the endpoint
# registered with plain form-encoded HTTP.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${STRIPEBENCH_WORKDIR:-$PWD}"
cp "$here/app.py" "$work/app.py"
"${PYTHON:-python}" - "$work" <<'PY'
import base64, json, os, sys, urllib.parse, urllib.request
shop = os.environ.get("SHOP_URL", "http://127.0.0.1:4242").rstrip("/")
body = urllib.parse.urlencode([("url", shop + "/webhook"),
                               ("enabled_events[]", "checkout.session.completed"),
                               ("enabled_events[]", "checkout.session.async_payment_succeeded"),
                               ("description", "Steep & Co fulfilment")]).encode()
request = urllib.request.Request(
    os.environ.get("STRIPE_API_BASE", "https://api.stripe.com").rstrip("/") + "/v1/webhook_endpoints",
    data=body)
token = base64.b64encode((os.environ["STRIPE_SECRET_KEY"] + ":").encode()).decode()
request.add_header("Authorization", "Basic " + token)
with urllib.request.urlopen(request) as answer:
    secret = json.load(answer)["secret"]
with open(os.path.join(sys.argv[1], "webhook_secret.txt"), "w") as handle:
    handle.write(secret)
PY
