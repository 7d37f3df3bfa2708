"""The emulator answers the official python SDK for the basics."""

import stripe


def test_customer_roundtrip(client: stripe.StripeClient) -> None:
    created = client.v1.customers.create(params={"email": "jane@example.com", "name": "Jane"})
    assert created.id.startswith("cus_")
    fetched = client.v1.customers.retrieve(created.id)
    assert fetched.email == "jane@example.com"
    assert fetched.name == "Jane"
