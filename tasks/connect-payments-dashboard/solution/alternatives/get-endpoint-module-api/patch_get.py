"""Add a GET account-session endpoint to app.py, on stripe's module-level API."""

from __future__ import annotations

import sys
from pathlib import Path

ENDPOINT = '''

stripe.api_key = os.environ.get("STRIPE_SECRET_KEY", "")
if os.environ.get("STRIPE_API_BASE"):
    stripe.api_base = os.environ["STRIPE_API_BASE"]


@app.get("/api/connect/account-session")
def connect_account_session() -> Any:
    groomer = current_groomer()
    if groomer is None:
        abort(401)
    created = stripe.AccountSession.create(
        account=groomer["stripe_account_id"],
        components={"payments": {"enabled": True, "features": {
            "refund_management": False, "dispute_management": True,
            "capture_payments": True, "destination_on_behalf_of_charge_management": False}}},
    )
    return {"clientSecret": created.client_secret}
'''
MARKER = '\n\nif __name__ == "__main__":'

path = Path(sys.argv[1])
source = path.read_text()
source = source.replace(MARKER, ENDPOINT + MARKER, 1)
source = source.replace('    return render_template("payments.html", groomer=groomer)',
                        '    return render_template("payments.html", groomer=groomer,\n'
                        '                           publishable_key=PUBLISHABLE_KEY)')
path.write_text(source)
