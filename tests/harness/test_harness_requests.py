"""The trial's emulator_requests.json: the account's whole request record, read through
the harness's control-plane client a page at a time, each trial phase a seq range, and,
when the record's budget ran out, saying exactly what it did not keep."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from conftest import RunningEmulator, start_emulator
from stripebench.harness import emulator as emulator_module
from stripebench.harness.emulator import Emulator
from stripebench.harness.trial import save_requests
from stripebench.rundir import load_requests


def balance(base: str, key: str, count: int) -> None:
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}) as http:
        for _ in range(count):
            assert http.get("/v1/balance").status_code == 200


def test_the_whole_record_is_read_page_by_page(emulator: RunningEmulator, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emulator_module, "REQUEST_PAGE", 4)
    emu = Emulator(emulator.base)
    account = emu.create_account(emu.trial_account_id("pages", 1))
    balance(emulator.base, account.secret_key, 10)
    assert emu.request_total(account.id) == 10
    total = save_requests(emu, account.id, tmp_path, {"setup": 1, "agent": 3, "grading": 11})
    saved = json.loads((tmp_path / "emulator_requests.json").read_text())
    assert total == saved["total"] == 10 and saved["complete"] is True
    assert saved["object"] == "emulator.request_record" and saved["account"] == account.id
    assert [r["seq"] for r in saved["data"]] == list(range(1, 11))
    assert saved["phases"] == {"setup": {"first_seq": 1, "last_seq": 2},
                               "agent": {"first_seq": 3, "last_seq": 10},
                               "grading": {"first_seq": 11, "last_seq": 10}}  # none yet
    assert emu.requests(account.id, after=8)["data"][0]["seq"] == 9
    emu.delete_account(account.id)


def test_a_record_past_its_budget_says_what_the_file_lacks(tmp_path: Path) -> None:
    small = start_emulator(request_budget=5000)
    try:
        emu = Emulator(small.base)
        account = emu.create_account(emu.trial_account_id("budget", 1))
        balance(small.base, account.secret_key, 50)
        save_requests(emu, account.id, tmp_path, {"agent": 1, "grading": 41})
        saved = json.loads((tmp_path / "emulator_requests.json").read_text())
        kept = saved["kept"]
        assert 0 < kept < 50 and (saved["total"], saved["dropped"]) == (50, 50 - kept)
        assert saved["complete"] is False and saved["budget_bytes"] == 5000
        assert [r["seq"] for r in saved["data"]] == list(range(1, kept + 1))
        assert saved["phases"]["grading"] == {"first_seq": 41, "last_seq": 50}
    finally:
        small.stop()


def test_old_runs_plain_lists_still_load_as_records(tmp_path: Path) -> None:
    entry = {"id": "req_1", "method": "GET", "path": "/v1/balance", "recorded_by": None}
    (tmp_path / "short").mkdir()
    (tmp_path / "short" / "emulator_requests.json").write_text(json.dumps([entry] * 3))
    (tmp_path / "ring").mkdir()
    (tmp_path / "ring" / "emulator_requests.json").write_text(json.dumps([entry] * 5000))
    short, ring = load_requests(tmp_path / "short"), load_requests(tmp_path / "ring")
    assert short is not None and ring is not None
    assert (short["complete"], short["total"], len(short["data"])) == (True, 3, 3)
    # a full ring buffer may have lost its oldest requests: unknown, so not complete
    assert (ring["complete"], ring["total"], ring["dropped"]) == (False, None, None)
    assert load_requests(tmp_path / "missing") is None
    saved = tmp_path / "new"
    saved.mkdir()
    (saved / "emulator_requests.json").write_text(json.dumps(
        {"object": "emulator.request_record", "total": 0, "complete": True, "data": []}))
    assert load_requests(saved) == json.loads((saved / "emulator_requests.json").read_text())
