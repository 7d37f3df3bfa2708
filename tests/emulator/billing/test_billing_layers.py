"""The billing engine sits below the endpoints: `billing/` never imports the resource
modules that serve billing's own routes (they import the engine, not the other way)."""

from __future__ import annotations

import ast
from pathlib import Path

from paths import REPO

BILLING = REPO / "src/stripebench/emulator/billing"
# Endpoint modules built on the billing engine: importing them from billing/ is a cycle.
ENDPOINTS = {"subscriptions", "subscription_items", "subscription_schedules", "invoices",
             "invoice_items", "invoice_previews", "invoice_payments", "test_clocks",
             "billing_meters", "billing_portal"}


def _resource_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every `resources.X` import in the file, nested ones included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if "resources" in parts:
                rest = parts[parts.index("resources") + 1:]
                names = rest[:1] or [alias.name for alias in node.names]
                found += [(node.lineno, name) for name in names]
    return found


def test_billing_engine_does_not_import_billing_endpoints() -> None:
    offenders = [f"{path.name}:{line} imports resources.{name}"
                 for path in sorted(BILLING.glob("*.py"))
                 for line, name in _resource_imports(path) if name in ENDPOINTS]
    assert offenders == []


def test_subscription_engine_lives_in_billing() -> None:
    """Checkout and schedules create subscriptions through the engine; the endpoint
    module re-exports the same function."""
    from stripebench.emulator.billing.creating import create_subscription
    from stripebench.emulator.resources import subscriptions
    assert subscriptions.create_subscription is create_subscription
