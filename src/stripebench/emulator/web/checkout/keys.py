"""Which publishable key may open an embedded Checkout Session.

Stripe.js sends its publishable key (and `stripeAccount`, for Connect) with the embedded
page and its `init` call. The key must exist, be a publishable key, and belong to the
account that created the session (or to that account's platform when Stripe.js was
created with `stripeAccount`), as Stripe refuses another account's key.
"""

from __future__ import annotations

from ...store import Account, Store


def masked(key: str) -> str:
    return key[:8] + "*" * 12 + key[-4:] if len(key) > 12 else key


def key_problem(store: Store, owner: Account, session_id: str, key: str,
                stripe_account: str | None) -> tuple[int, str] | None:
    """None when `key` may open the session; else (HTTP status, Stripe-style message)."""
    found = store.keys.get(key)
    if found is None:
        return 401, f"Invalid API Key provided: {masked(key)}"
    account, kind = found
    if kind != "publishable":
        return 401, ("You should not use your secret key with Stripe.js. Please pass a "
                     "publishable key instead.")
    acting = account
    if stripe_account and stripe_account != account.id:
        connected = store.accounts.get(stripe_account)
        if connected is None or connected.parent != account.id:
            return 403, (f"The provided key does not have access to account '{stripe_account}' "
                         "(or that account does not exist).")
        acting = connected
    if acting.id != owner.id:
        return 404, (f"No such checkout.session: '{session_id}'. The publishable key belongs "
                     "to another account than the one that created this Checkout Session.")
    return None
