"""Each Stripe.js release's surface, walked in real Chromium against its typings.

The emulator serves one script for every release (`/v3/`, `/acacia/stripe.js` ...
`/endive/stripe.js`); what the Stripe object offers depends on the release, as Stripe's
changelog describes:

- https://docs.stripe.com/changelog/clover/2025-09-30/remove-redirect-to-checkout
- https://docs.stripe.com/changelog/dahlia/2026-03-25/rename-init-embedded-checkout-to-create-embedded-checkout-page
- https://docs.stripe.com/changelog/dahlia/2026-03-25/rename-init-checkout-to-init-checkout-elements
- https://docs.stripe.com/changelog/dahlia/2026-03-25/remove-legacy-stripejs-methods

Every method and Element type a release's @stripe/stripe-js typings declare must either
work or throw an IntegrationError that names it: never "is not a function".
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from browser.stripejs_typings import element_types, methods, release_train
from paths import REPO, TESTS

ROOT = REPO
INSTALLED = ROOT / "node_modules/@stripe/stripe-js"
SNAPSHOT = json.loads((TESTS / "browser/stripejs_releases.json").read_text())
TRAINS = ["v3", "acacia", "basil", "clover", "dahlia", "endive"]

# What the emulator really does (card payments, Elements, Embedded Checkout).
WORKING = {"elements", "confirmPayment", "confirmSetup", "confirmCardPayment",
           "confirmCardSetup", "createPaymentMethod", "createConfirmationToken", "createToken",
           "retrievePaymentIntent", "retrieveSetupIntent", "handleNextAction",
           "handleCardAction", "paymentRequest", "registerAppInfo"}
WORKING_UNTIL = {"redirectToCheckout": "basil", "initEmbeddedCheckout": "clover",
                 "initCheckout": "clover"}
WORKING_SINCE = {"createEmbeddedCheckoutPage": "dahlia", "initCheckoutElementsSdk": "clover"}
ELEMENTS_DRAWN = {"card", "cardNumber", "cardExpiry", "cardCvc", "payment", "address",
                  "linkAuthentication", "expressCheckout", "paymentRequestButton"}
# Removed by a release: still a function, throwing an IntegrationError that says so.
REMOVED = {"redirectToCheckout": "clover", "initEmbeddedCheckout": "dahlia",
           "initCheckout": "dahlia", "handleCardPayment": "dahlia",
           "confirmPaymentIntent": "dahlia", "handleFpxPayment": "dahlia",
           "handleCardSetup": "dahlia", "confirmSetupIntent": "dahlia",
           "createSource": "dahlia", "retrieveSource": "dahlia"}


def _surface(release: str) -> dict[str, Any]:
    if release == release_train(INSTALLED):
        return {"methods": methods(INSTALLED), "elements": element_types(INSTALLED)}
    return dict(SNAPSHOT[release])


def _at_least(release: str, since: str) -> bool:
    return TRAINS.index(release) >= TRAINS.index(since)


def _working(release: str) -> set[str]:
    out = set(WORKING)
    out |= {m for m, until in WORKING_UNTIL.items() if not _at_least(release, until)
            or release == until}
    out |= {m for m, since in WORKING_SINCE.items() if _at_least(release, since)}
    return out


WALK = """async ([names, types]) => {
  const stripe = Stripe('pk_test_walk');
  const out = {};
  for (const name of names) {
    if (typeof stripe[name] !== 'function') { out[name] = {missing: true}; continue; }
    try {
      const value = await Promise.resolve().then(() => stripe[name]());
      out[name] = {ok: true, value: typeof value};
    } catch (e) {
      out[name] = {error: e && e.name, message: String(e && e.message)};
    }
  }
  const elements = {};
  for (const type of types) {
    try { stripe.elements().create(type); elements[type] = {ok: true}; }
    catch (e) { elements[type] = {error: e && e.name, message: String(e && e.message)}; }
  }
  return {methods: out, elements, version: Stripe.version};
}"""


def _script_url(base: str, release: str) -> str:
    return f"{base}/js.stripe.com/v3/" if release == "v3" else \
        f"{base}/js.stripe.com/{release}/stripe.js"


def test_installed_loader_is_the_newest_release_and_the_snapshot_covers_the_rest() -> None:
    assert release_train(INSTALLED) == TRAINS[-1]
    assert set(SNAPSHOT) == set(TRAINS[:-1])


@pytest.mark.parametrize("release", TRAINS)
def test_every_declared_method_and_element_works_or_names_itself(
        page: Any, emulator: Any, release: str) -> None:
    surface = _surface(release)
    page.set_content(f"<script src='{_script_url(emulator.base, release)}'></script>")
    walked = page.evaluate(WALK, [surface["methods"], surface["elements"]])
    assert walked["version"] == (3 if release == "v3" else release)
    working = _working(release)
    for name in surface["methods"]:
        got = walked["methods"][name]
        assert not got.get("missing"), f"{release}: stripe.{name} is not a function"
        if name in working:
            assert "not supported by the local Stripe emulator" not in got.get("message", ""), \
                (release, name, got)
        else:
            assert got.get("error") == "IntegrationError", (release, name, got)
            assert f"stripe.{name}()" in got["message"], (release, name, got)
    for kind in surface["elements"]:
        got = walked["elements"][kind]
        if kind in ELEMENTS_DRAWN:
            assert got.get("ok"), (release, kind, got)
        else:
            assert got.get("error") == "IntegrationError" and kind in got["message"], \
                (release, kind, got)


@pytest.mark.parametrize("release", TRAINS)
def test_removed_methods_throw_and_name_their_replacement(page: Any, emulator: Any,
                                                          release: str) -> None:
    page.set_content(f"<script src='{_script_url(emulator.base, release)}'></script>")
    names = sorted(REMOVED)
    walked = page.evaluate(WALK, [names, ["paymentRequestButton", "affirmMessage"]])
    for name in names:
        got = walked["methods"][name]
        assert not got.get("missing"), (release, name)
        removed = _at_least(release, REMOVED[name])
        said_removed = f"was removed in Stripe.js {REMOVED[name]}" in got.get("message", "")
        assert said_removed == removed, (release, name, got)
        if removed:
            assert got["error"] == "IntegrationError"
    if _at_least(release, "dahlia"):
        message = walked["methods"]["initEmbeddedCheckout"]["message"]
        assert "stripe.createEmbeddedCheckoutPage()" in message
    # paymentRequestButton left the typings with endive, affirmMessage with clover.
    assert bool(walked["elements"]["paymentRequestButton"].get("ok")) == (release != "endive")
    assert ("A valid Element name" in walked["elements"]["affirmMessage"]["message"]) == \
        _at_least(release, "clover")


GROUP = """async () => {
  const elements = Stripe('pk_test_walk').elements();
  let ended = 0;
  elements.on('update-end', () => { ended += 1; });
  const returned = elements.update({locale: 'fr'});
  const isPromise = !!returned && typeof returned.then === 'function';
  await (isPromise ? returned : new Promise((r) => setTimeout(r, 20)));
  let radios;
  try {
    elements.create('payment', {layout: {type: 'accordion', radios: true}});
    radios = 'created';
  } catch (e) { radios = e.name + ': ' + e.message; }
  return {isPromise, ended, radios};
}"""


@pytest.mark.parametrize("release", TRAINS)
def test_dahlia_elements_update_promise_and_radios_enum(page: Any, emulator: Any,
                                                        release: str) -> None:
    """From dahlia, elements.update() returns a Promise
    (https://docs.stripe.com/changelog/dahlia/2026-03-25/elements-update-returns-promise) and
    layout.radios refuses booleans
    (https://docs.stripe.com/changelog/dahlia/2026-03-25/disallow-booleans-for-radios);
    'update-end' fires in every release."""
    page.set_content(f"<script src='{_script_url(emulator.base, release)}'></script>")
    got = page.evaluate(GROUP)
    dahlia = _at_least(release, "dahlia")
    assert got["isPromise"] == dahlia
    assert got["ended"] == 1
    if dahlia:
        assert got["radios"].startswith("IntegrationError: Invalid value for "
                                        "elements.create('payment'): layout.radios"), got
    else:
        assert got["radios"] == "created"
