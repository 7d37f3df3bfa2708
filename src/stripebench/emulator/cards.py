"""Stripe's test cards: raw numbers, `pm_card_*` ids and `tok_*` tokens.

Each test card names its brand, funding, country and what happens when it is used:
it succeeds, is declined (with Stripe's error code and decline code), needs 3D Secure,
succeeds and is later disputed, skips the pending balance, or fails a later refund.
The numbers and their behaviour are the ones Stripe documents for test mode.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from .errors import CardError
from .ids import base62


@dataclass(frozen=True)
class Decline:
    code: str  # error.code (card_declined, expired_card, incorrect_cvc, ...)
    decline_code: str
    message: str  # what the customer sees
    seller_message: str  # charge.outcome.seller_message
    outcome_type: str = "issuer_declined"  # or "blocked" (Radar)
    risk_level: str = "normal"


@dataclass(frozen=True)
class TestCard:
    number: str
    brand: str  # visa, mastercard, amex, discover, diners, jcb, unionpay, cartes_bancaires
    funding: str = "credit"
    country: str = "US"
    decline: Decline | None = None
    # 3DS: "none" | "required" (on session; off-session works after setup) | "always"
    three_d_secure: str = "none"
    # Declines every payment once authentication is out of the way (the challenge passed or
    # the card was set up for off-session use); SetupIntents still succeed.
    decline_after_auth: Decline | None = None
    dispute: str | None = None  # dispute reason filed after a successful charge
    set_up: bool = False  # 3DS "required" card that acts as if set up for off-session use
    bypass_pending: bool = False  # funds go straight to the available balance
    refund_fails: bool = False
    cvc_check: str = "pass"
    address_check: str = "pass"
    display_brand: str | None = None

    @property
    def last4(self) -> str:
        return self.number[-4:]


def _decline(decline_code: str, message: str = "Your card was declined.",
             code: str = "card_declined", seller: str | None = None,
             outcome_type: str = "issuer_declined", risk: str = "normal") -> Decline:
    seller_message = seller or (
        "The bank did not return any further details with this decline."
        if decline_code == "generic_decline"
        else f"The bank returned the decline code `{decline_code}`.")
    return Decline(code, decline_code, message, seller_message, outcome_type, risk)


GENERIC = _decline("generic_decline")
INSUFFICIENT = _decline("insufficient_funds", "Your card has insufficient funds.")
LOST = _decline("lost_card")
STOLEN = _decline("stolen_card")
EXPIRED = _decline("expired_card", "Your card has expired.", code="expired_card")
INCORRECT_CVC = _decline("incorrect_cvc", "Your card's security code is incorrect.",
                         code="incorrect_cvc")
PROCESSING_ERROR = _decline("processing_error", "An error occurred while processing your card. "
                            "Try again in a little bit.", code="processing_error")
VELOCITY = _decline("card_velocity_exceeded", "Your card was declined for making repeated "
                    "attempts too frequently or exceeding its amount limit.")
FRAUD_BLOCKED = _decline("fraudulent", seller="Stripe blocked this payment as too risky.",
                         outcome_type="blocked", risk="highest")
AUTH_REQUIRED = Decline("authentication_required", "authentication_required",
                        "Your card was declined. This transaction requires authentication.",
                        "The bank returned the decline code `authentication_required`.")
AUTH_FAILED = Decline("payment_intent_authentication_failure", "",
                      "We are unable to authenticate your payment method. Please choose a "
                      "different payment method and try again.",
                      "3D Secure authentication failed.")

# Raw card numbers, as typed into a browser.
NUMBERS: dict[str, TestCard] = {c.number: c for c in (
    TestCard("4242424242424242", "visa"),
    TestCard("4000056655665556", "visa", "debit"),
    TestCard("5555555555554444", "mastercard"),
    TestCard("2223003122003222", "mastercard"),
    TestCard("5200828282828210", "mastercard", "debit"),
    TestCard("5105105105105100", "mastercard", "prepaid"),
    TestCard("378282246310005", "amex"),
    TestCard("371449635398431", "amex"),
    TestCard("6011111111111117", "discover"),
    TestCard("6011000990139424", "discover"),
    TestCard("6011981111111113", "discover", "debit"),
    TestCard("3056930009020004", "diners"),
    TestCard("36227206271667", "diners"),
    TestCard("6555900000604105", "discover"),
    TestCard("3566002020360505", "jcb", country="JP"),
    TestCard("6200000000000005", "unionpay", country="CN"),
    TestCard("6200000000000047", "unionpay", "debit", country="CN"),
    TestCard("4000002500001001", "visa", country="FR", display_brand="cartes_bancaires"),
    TestCard("5555552500001001", "mastercard", country="FR", display_brand="cartes_bancaires"),
    TestCard("4000000760000002", "visa", country="BR"),
    TestCard("4000001240000000", "visa", country="CA"),
    TestCard("4000004840008001", "visa", country="MX"),
    TestCard("4000000400000008", "visa", country="AT"),
    TestCard("4000000560000004", "visa", country="BE"),
    TestCard("4000002500000003", "visa", country="FR"),
    TestCard("4000002760000016", "visa", country="DE"),
    TestCard("4000008260000000", "visa", country="GB"),
    TestCard("4000003920000003", "visa", country="JP"),
    TestCard("4000000360000006", "visa", country="AU"),
    # Declines
    TestCard("4000000000000002", "visa", decline=GENERIC),
    TestCard("4000000000009995", "visa", decline=INSUFFICIENT),
    TestCard("4000000000009987", "visa", decline=LOST),
    TestCard("4000000000009979", "visa", decline=STOLEN),
    TestCard("4000000000000069", "visa", decline=EXPIRED),
    TestCard("4000000000000127", "visa", decline=INCORRECT_CVC),
    TestCard("4000000000000119", "visa", decline=PROCESSING_ERROR),
    TestCard("4000000000006975", "visa", decline=VELOCITY),
    TestCard("4100000000000019", "visa", decline=FRAUD_BLOCKED),
    TestCard("4000000000004954", "visa", decline=FRAUD_BLOCKED),
    TestCard("4000000000000341", "visa", decline=GENERIC),
    TestCard("4000000000000101", "visa", cvc_check="fail"),
    TestCard("4000000000000010", "visa", address_check="fail"),
    # 3D Secure
    TestCard("4000002500003155", "visa", three_d_secure="required"),
    TestCard("4000002760003184", "visa", three_d_secure="always"),
    # "Already set up": on-session payments authenticate, off-session ones go through.
    TestCard("4000003800000446", "visa", three_d_secure="required", set_up=True),
    TestCard("4000000000003220", "visa", three_d_secure="always"),
    TestCard("4000000000003063", "visa", three_d_secure="always"),
    TestCard("4000008400001629", "visa", three_d_secure="always", decline_after_auth=GENERIC),
    # Authenticates (or sets up) fine, then every payment is declined for insufficient funds.
    TestCard("4000008260003178", "visa", three_d_secure="required",
             decline_after_auth=INSUFFICIENT),
    TestCard("4000000000003055", "visa"),
    # Disputes, balance, refunds
    TestCard("4000000000000259", "visa", dispute="fraudulent"),
    TestCard("4000000000002685", "visa", dispute="product_not_received"),
    TestCard("4000000000001976", "visa", dispute="general"),
    TestCard("4000000000000077", "visa", bypass_pending=True),
    TestCard("4000003720000278", "visa", country="GB", bypass_pending=True),
    TestCard("4000000000005126", "visa", refund_fails=True),
)}

# Test payment method ids / token suffixes -> the card they stand for.
_NAMED: dict[str, str] = {
    "visa": "4242424242424242",
    "visa_debit": "4000056655665556",
    "mastercard": "5555555555554444",
    "mastercard_debit": "5200828282828210",
    "mastercard_prepaid": "5105105105105100",
    "amex": "378282246310005",
    "discover": "6011111111111117",
    "diners": "3056930009020004",
    "jcb": "3566002020360505",
    "unionpay": "6200000000000005",
    "us": "4242424242424242",
    "br": "4000000760000002",
    "ca": "4000001240000000",
    "mx": "4000004840008001",
    "gb": "4000008260000000",
    "de": "4000002760000016",
    "fr": "4000002500000003",
    "jp": "4000003920000003",
    "au": "4000000360000006",
    "visa_cartesBancaires": "4000002500001001",
    "mastercard_cartesBancaires": "5555552500001001",
    "bypassPending": "4000000000000077",
    "bypassPendingInternational": "4000003720000278",
    "createDispute": "4000000000000259",
    "createDisputeProductNotReceived": "4000000000002685",
    "createDisputeInquiry": "4000000000001976",
    "chargeDeclined": "4000000000000002",
    "visa_chargeDeclined": "4000000000000002",
    "chargeDeclinedInsufficientFunds": "4000000000009995",
    "visa_chargeDeclinedInsufficientFunds": "4000000000009995",
    "chargeDeclinedLostCard": "4000000000009987",
    "visa_chargeDeclinedLostCard": "4000000000009987",
    "chargeDeclinedStolenCard": "4000000000009979",
    "visa_chargeDeclinedStolenCard": "4000000000009979",
    "chargeDeclinedExpiredCard": "4000000000000069",
    "visa_chargeDeclinedExpiredCard": "4000000000000069",
    "chargeDeclinedIncorrectCvc": "4000000000000127",
    "visa_chargeDeclinedIncorrectCvc": "4000000000000127",
    "chargeDeclinedProcessingError": "4000000000000119",
    "visa_chargeDeclinedProcessingError": "4000000000000119",
    "visa_chargeDeclinedVelocityLimitExceeded": "4000000000006975",
    "chargeDeclinedVelocityLimitExceeded": "4000000000006975",
    "chargeDeclinedFraudulent": "4100000000000019",
    "visa_chargeDeclinedFraudulent": "4100000000000019",
    "riskLevelHighest": "4000000000004954",
    "radarBlock": "4100000000000019",
    "chargeCustomerFail": "4000000000000341",
    "cvcCheckFail": "4000000000000101",
    "avsFail": "4000000000000010",
    "authenticationRequired": "4000002760003184",
    "authenticationRequiredOnSetup": "4000002500003155",
    "authenticationRequiredSetupForOffSession": "4000003800000446",
    "threeDSecure2Required": "4000000000003220",
    "threeDSecureRequired": "4000000000003063",
    "threeDSecureOptional": "4000000000003055",
    "authenticationRequiredChargeDeclinedInsufficientFunds": "4000008260003178",
    "refundFail": "4000000000005126",
}
PM_IDS: dict[str, TestCard] = {f"pm_card_{k}": NUMBERS[v] for k, v in _NAMED.items()}
TOKENS: dict[str, TestCard] = {f"tok_{k}": NUMBERS[v] for k, v in _NAMED.items()}
# The 4000000000000341 card attaches to a customer fine and is declined at charge time.
CHARGE_CUSTOMER_FAIL = "4000000000000341"

_PREFIXES = (("4", "visa"), ("34", "amex"), ("37", "amex"), ("51", "mastercard"),
             ("52", "mastercard"), ("53", "mastercard"), ("54", "mastercard"),
             ("55", "mastercard"), ("22", "mastercard"), ("23", "mastercard"),
             ("24", "mastercard"), ("25", "mastercard"), ("26", "mastercard"),
             ("27", "mastercard"), ("6011", "discover"), ("65", "discover"),
             ("644", "discover"), ("36", "diners"), ("300", "diners"), ("305", "diners"),
             ("35", "jcb"), ("62", "unionpay"))


def brand_for(number: str) -> str:
    best = ("", "unknown")
    for prefix, brand in _PREFIXES:
        if number.startswith(prefix) and len(prefix) > len(best[0]):
            best = (prefix, brand)
    return best[1]


def luhn_ok(number: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(number)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def lookup_number(raw: str, param: str = "card[number]") -> TestCard:
    """The test card for a typed number; any other valid number behaves like 4242."""
    number = "".join(ch for ch in str(raw) if not ch.isspace() and ch != "-")
    if not number.isdigit() or not 12 <= len(number) <= 19:
        raise CardError("Your card number is incorrect.", code="incorrect_number", param=param)
    known = NUMBERS.get(number)
    if known is not None:
        return known
    if not luhn_ok(number):
        raise CardError("Your card number is incorrect.", code="incorrect_number", param=param)
    return replace(NUMBERS["4242424242424242"], number=number, brand=brand_for(number))


def fingerprint(number: str) -> str:
    """A stable per-number fingerprint (deterministic, like Stripe's per-account one)."""

    return base62(hashlib.sha256(f"card:{number}".encode()).digest(), 16)


def brand_label(brand: str) -> str:
    return {"visa": "Visa", "mastercard": "Mastercard", "amex": "American Express",
            "discover": "Discover", "diners": "Diners Club", "jcb": "JCB",
            "unionpay": "UnionPay", "cartes_bancaires": "Cartes Bancaires"}.get(brand, "Card")
