"""Add the account-session endpoint to the platform's app.py (the oracle's server change)."""

from __future__ import annotations

import sys
from pathlib import Path

ENDPOINT = '''

@app.post("/account_session")
def account_session() -> Any:
    """An Account Session for the signed-in groomer's own connected account only."""
    groomer = current_groomer()
    if groomer is None:
        return {"error": "sign in first"}, 401
    account_session = client.v1.account_sessions.create(params={
        "account": groomer["stripe_account_id"],
        "components": {"payments": {"enabled": True, "features": {
            "dispute_management": True}}},
    })
    return {"client_secret": account_session.client_secret}
'''
MARKER = '\n\nif __name__ == "__main__":'


def main() -> None:
    path = Path(sys.argv[1])
    source = path.read_text()
    if "def account_session" not in source:
        source = source.replace(MARKER, ENDPOINT + MARKER, 1)
        source = source.replace('    return render_template("payments.html", groomer=groomer)',
                                '    return render_template("payments.html", groomer=groomer,\n'
                                '                           publishable_key=PUBLISHABLE_KEY)')
        path.write_text(source)


if __name__ == "__main__":
    main()
