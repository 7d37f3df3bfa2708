"""The committed schema is what scripts/gen_schema.py derives from the installed SDK.

Upgrading the `stripe` package without regenerating the schema fails here, instead of
the emulator quietly validating against the old SDK's parameters and object fields.
"""

from __future__ import annotations

import json

import stripe

from conftest import load_module
from paths import REPO
from stripebench.emulator import schema

ROOT = REPO


def test_schema_matches_the_installed_sdk() -> None:
    committed = json.loads(schema.SCHEMA_FILE.read_text())
    assert committed["sdk_version"] == stripe.VERSION
    assert committed["api_version"] == stripe.api_version
    gen = load_module(ROOT / "scripts" / "gen_schema.py", "gen_schema_under_test")
    fresh = {"sdk_version": stripe.VERSION, "api_version": stripe.api_version,
             "endpoints": gen.endpoints(gen.ParamsIndex()), "objects": gen.objects()}
    # Same serialization as the generator, so this is a byte-for-byte comparison.
    assert json.dumps(fresh, separators=(",", ":"), sort_keys=True) == \
        schema.SCHEMA_FILE.read_text(), "run: .venv/bin/python scripts/gen_schema.py"
