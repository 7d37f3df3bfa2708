"""Alternative: the same sessions written in equivalent forms."""

import json
import os
import urllib.request
from pathlib import Path

path = Path(os.environ.get("STRIPEBENCH_WORKDIR", ".")) / "submission.json"
answers = json.loads(path.read_text())


def listed(what):
    base = os.environ.get("STRIPE_API_BASE", "https://api.stripe.com").rstrip("/")
    request = urllib.request.Request(f"{base}/v1/{what}?limit=100", headers={
        "Authorization": "Bearer " + os.environ["STRIPE_SECRET_KEY"]})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["data"]


for params in answers.values():
    for old, new in (("payment_method_types", "allowed_payment_method_types"),
                     ("allowed_payment_method_types", "payment_method_types")):
        if old in params:
            params[new] = list(reversed(params.pop(old)))
            break
    intent = params.get("payment_intent_data") or {}
    if "setup_future_usage" in intent:
        intent["setup_future_usage"] = {"on_session": "off_session",
                                        "off_session": "on_session"}[intent["setup_future_usage"]]
    sub = params.get("subscription_data") or {}
    if "billing_cycle_anchor" in sub:
        sub["billing_cycle_anchor"] += 3600 * 9
    for n, field in enumerate(params.get("custom_fields", [])):
        field["key"] = f"answer{n}"
        block = field.get("dropdown")
        if block:
            renamed = {o["value"]: f"choice_{m}" for m, o in enumerate(block["options"])}
            for option in block["options"]:
                option["value"] = renamed[option["value"]]
            if "default_value" in block:
                block["default_value"] = renamed[block["default_value"]]
    for key in ("line_items", "optional_items", "shipping_options", "custom_fields"):
        if key in params:
            params[key] = list(reversed(params[key]))
    countries = (params.get("shipping_address_collection") or {}).get("allowed_countries")
    if countries:
        params["shipping_address_collection"]["allowed_countries"] = [
            c.lower() for c in reversed(countries)]
    if params.get("allow_promotion_codes") is True:
        params["allow_promotion_codes"] = "true"
    for key in ("automatic_tax", "phone_number_collection", "tax_id_collection"):
        if (params.get(key) or {}).get("enabled") is True:
            params[key]["enabled"] = "true"
path.write_text(json.dumps(answers, indent=2) + "\n")
