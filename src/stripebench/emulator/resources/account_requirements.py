"""What a connected account still owes before it can take payments and receive payouts.

Stripe lists requirements as dotted field names (`individual.dob.day`,
`external_account`, `tos_acceptance.date`). We model the US-style set for individuals and
companies: a requirement is satisfied as soon as the data arrives (test mode verifies
at once), and everything follows from the stored account, so every read agrees:
`requirements`, capability statuses, `charges_enabled`, `payouts_enabled`,
`details_submitted`.
"""

from __future__ import annotations

from typing import Any

PROFILE = ["business_profile.mcc", "business_profile.url"]
ADDRESS = ["address.city", "address.line1", "address.postal_code", "address.state"]
PERSON = ["first_name", "last_name", "dob.day", "dob.month", "dob.year", "email", "phone",
          *ADDRESS, "ssn_last_4"]
COMPANY = ["company.name", "company.tax_id", "company.phone",
           *(f"company.{a}" for a in ADDRESS), "company.owners_provided",
           "company.directors_provided", "company.executives_provided"]
REPRESENTATIVE = [f"representative.{f}" for f in [*PERSON, "relationship.title"]]
TOS = ["tos_acceptance.date", "tos_acceptance.ip"]


def _dig(value: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _person_has(person: dict[str, Any] | None, field: str) -> bool:
    if not person:
        return False
    if field == "ssn_last_4":
        return bool(person.get("ssn_last_4_provided") or person.get("id_number_provided"))
    return _dig(person, field) not in (None, "", False)


def due(account: dict[str, Any], persons: list[dict[str, Any]],
        has_external_account: bool) -> list[str]:
    """The requirements not yet satisfied, in Stripe's order (profile, identity, bank, TOS)."""
    missing = [f for f in PROFILE if not _dig(account, f)]
    if _dig(account, "business_profile.product_description"):
        missing = [f for f in missing if f != "business_profile.url"]  # stands in for a site
    business_type = account.get("business_type")
    if not business_type:
        missing.append("business_type")
    elif business_type == "individual":
        individual = account.get("individual")
        missing += [f"individual.{f}" for f in PERSON if not _person_has(individual, f)]
    else:
        missing += [name for name in COMPANY if not _company_has(account, name)]
        rep = next((p for p in persons
                    if (p.get("relationship") or {}).get("representative")), None)
        missing += [r for r in REPRESENTATIVE if not _person_has(rep, r.split(".", 1)[1])]
    if not has_external_account:
        missing.append("external_account")
    tos = account.get("tos_acceptance") or {}
    missing += [f for f in TOS if not tos.get(f.split(".")[1])]
    return missing


def _company_has(account: dict[str, Any], name: str) -> bool:
    company = account.get("company") or {}
    flag = name.split(".", 1)[1]
    if flag == "tax_id":
        return bool(company.get("tax_id_provided"))
    if flag.endswith("_provided"):
        return bool(company.get(flag))
    return _dig(account, name) not in (None, "")


def requirements(account: dict[str, Any], currently_due: list[str]) -> dict[str, Any]:
    """Stripe's `requirements` hash. What is due on a new account is already past due (the
    account cannot charge until it arrives); a rejected account stays disabled."""
    rejected = account.get("_rejected")
    if rejected:
        disabled: str | None = f"rejected.{rejected}"
    elif currently_due:
        disabled = "requirements.past_due"
    else:
        disabled = None
    return {"alternatives": [], "current_deadline": None, "currently_due": list(currently_due),
            "disabled_reason": disabled, "errors": [],
            "eventually_due": list(currently_due),
            "past_due": [] if rejected else list(currently_due),
            "pending_verification": []}
