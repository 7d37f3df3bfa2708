"""The vocabulary a guide's backticked names are checked against: the pinned SDK's spec
(the schema the emulator is generated from), the emulator's own tables (test cards,
decline and error codes, events), and for names of an older API version the old SDK of
that version installed by scripts/setup.sh.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from stripebench.emulator import cards
from stripebench.emulator.schema import load

ROOT = Path(__file__).resolve().parents[2]
EMULATOR = ROOT / "src" / "stripebench" / "emulator"

# The old SDK that describes each older API version a guide may name.
OLD_SDKS = {
    "2022-08-01": ROOT / ".old-sdks" / "node10" / "node_modules" / "stripe" / "types",
    "2023-10-16": ROOT / ".old-sdks" / "stripe7" / "stripe",
}

# Names that are not API names and no pattern catches: reviewed, keep it short.
ALLOW = {
    "auto_paging_iter", "autoPagingEach", "to_dict", "construct_event", "user_message",
    "http_status", "request_id", "stripe_version", "stripe_account", "idempotency_key",
    "api_version",  # SDK options / attributes (also an event field)
    "max_network_retries", "base_addresses", "onExit", "fetchClientSecret",
    "initEmbeddedCheckout", "createEmbeddedCheckoutPage",
    "emulator_unsupported",  # the emulator's own error code for what it lacks
    "include_and_require",  # pending_invoice_items_behavior's pre-2022-08-01 default
    "has_more", "next_page", "total_count",  # list and search envelopes (not spec objects)
    "dict",  # Python's type
    "t", "v1",  # the parts of a Stripe-Signature header
    "acacia", "basil", "clover", "dahlia", "endive",  # release names (Stripe.js paths)
    "winning_evidence", "losing_evidence",  # Stripe's dispute test evidence strings
    "use_stripe_sdk.stripe_js", "raw_card_data",  # internal next_action data; account setting
    "meter_event_stream",  # the v2 meter event host the SDK addresses
}

# Stripe.js names (elements, options, events, input names): not in the server spec.
STRIPE_JS = {
    "mount", "unmount", "destroy", "focus", "blur", "clear", "update", "change", "escape",
    "appearance", "layout.radios", "elements.update", "cardnumber", "postal",
}

# The emulator's own control plane and request log (docs/fidelity.md), not Stripe's API.
EMULATOR_TERMS = {
    "stamps", "other_stamps", "unstamped", "kept", "dropped", "restored", "restarted",
    "began", "seq", "salt", "health", "listen", "v", "add", "subscription_failed_payments",
}

# Code variables a guide writes paths from (`pi.latest_charge`): the rest must resolve.
VARIABLES = {"pi", "sub", "seti", "promo", "session", "inv", "event", "client", "stripe",
             "customer", "charge"}
SDK_VERBS = {"create", "retrieve", "update", "list", "delete", "del", "search", "v1",
             "finalize_invoice", "void_invoice", "send_invoice", "api_base"}

API_NAME = re.compile(r"^[a-z][a-z0-9_]*(\[\])?(\.[a-z0-9_]+(\[\])?)*$")


def _walk(node: Any, names: set[str]) -> None:
    if isinstance(node, dict):
        for key in ("properties", "fields"):
            for name, sub in (node.get(key) or {}).items():
                names.add(name)
                _walk(sub, names)
        for value in node.get("enum") or []:
            if isinstance(value, str):
                names.add(value)
        for key in ("items", "anyOf", "oneOf"):
            sub = node.get(key)
            for part in sub if isinstance(sub, list) else [sub]:
                _walk(part, names)


@cache
def spec_names() -> frozenset[str]:
    schema = load()
    names: set[str] = set(schema["objects"])
    for obj in schema["objects"].values():
        _walk(obj, names)
    for endpoint in schema["endpoints"]:
        _walk(endpoint["params"], names)
        names.update(p for p in endpoint["path"].split("/") if p and "{" not in p)
    return frozenset(names)


@cache
def event_types() -> frozenset[str]:
    schema = load()
    endpoint = next(e for e in schema["endpoints"]
                    if e["path"] == "/v1/webhook_endpoints" and e["method"] == "POST")
    enum = endpoint["params"]["properties"]["enabled_events"]["items"]["enum"]
    return frozenset(enum)


@cache
def emulator_codes() -> frozenset[str]:
    """Error and decline codes the emulator answers with, and its test card ids."""
    found: set[str] = set()
    for path in EMULATOR.rglob("*.py"):
        text = path.read_text()
        found.update(re.findall(r"code=\"([a-z_]+)\"", text))
        found.update(re.findall(r"_decline\(\"([a-z_]+)\"", text))
        for pair in re.findall(r"Decline\(\"([a-z_]+)\", \"([a-z_]*)\"", text):
            found.update(c for c in pair if c)
        found.update(re.findall(r"\b(btok_[a-z_]+)", text))
    found.update(cards.PM_IDS)
    found.update(cards.TOKENS)
    return frozenset(found)


@cache
def old_names(version: str) -> frozenset[str]:
    folder = OLD_SDKS[version]
    words: set[str] = set()
    for path in folder.rglob("*.d.ts" if "node10" in str(folder) else "*.py"):
        words.update(re.findall(r"[a-z][a-z0-9_]*", path.read_text(errors="replace")))
    return frozenset(words)


def resolves(name: str) -> bool:
    if name in ALLOW | STRIPE_JS | EMULATOR_TERMS or name in event_types() or \
            name in emulator_codes():
        return True
    if any(e.endswith("." + name) for e in event_types()):
        return True  # `trial_will_end` after `customer.subscription.`
    vocabulary = spec_names() | SDK_VERBS
    parts = [p.removesuffix("[]") for p in name.split(".")]
    if len(parts) > 1 and parts[0] in VARIABLES:
        parts = parts[1:]
    return name in vocabulary or all(p in vocabulary for p in parts)


def candidates(span: str) -> list[str]:
    """The API names in one backticked span, or none when it is plainly not one (a file,
    route, header, class, card number, id or code expression)."""
    span = span.strip()
    left, sep, right = span.partition(":")
    names = []
    if sep and right.startswith("//"):
        return []  # a URL
    if re.fullmatch(r"[a-z]+_", span) or span in ("true", "false", "null") or \
            re.search(r"\.(py|json|md|js|sqlite)$", span) or span.startswith("stripebench"):
        return []  # an id prefix, a JSON literal, a file or module of this project
    if sep and API_NAME.match(left.strip()):
        names.append(left.strip())
        value = right.strip().strip("'\"")
        if API_NAME.match(value) and value not in ("true", "false", "null"):
            names.append(value)
        return names
    if span.startswith(('"', "'")) and span.endswith(('"', "'")):
        span = span[1:-1]
    if span.endswith("_beta"):
        return []  # a Stripe.js beta flag
    if API_NAME.match(span) and not re.match(r"^(sk|pk|rk|whsec)_", span):
        return [span]
    return []
