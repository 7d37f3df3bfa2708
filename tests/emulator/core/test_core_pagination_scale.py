"""List pages and searches over a few thousand objects, through the official SDK.

Lists seek to their cursor through an index and exact filters/searches read field
indexes (emulator/indexes.py); these tests pin that the answers are exactly Stripe's
cursor semantics, whatever the index does: newest first with ties broken by creation
order, `starting_after` / `ending_before` from anywhere (deleted objects included),
`has_more` right at the boundaries, filters and searches that follow later updates.
https://docs.stripe.com/api/pagination , https://docs.stripe.com/api/pagination/auto ,
https://docs.stripe.com/search#query-fields-for-customers
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import stripe

from conftest import RunningEmulator

COUNT = 3000


@pytest.fixture(scope="module")
def crowded(emulator: RunningEmulator) -> dict[str, Any]:
    return _crowd(emulator, COUNT)


def _crowd(emulator: RunningEmulator, count: int) -> dict[str, Any]:
    """An account restored with `count` customers that all share one `created` second
    (ties), plus a few made through the API after them; every 7th restored one deleted."""
    account = emulator.new_account()
    client = _sdk(emulator, account)
    template = client.v1.customers.create(params={"email": "template@example.com"}).to_dict()
    snapshot = httpx.get(f"{emulator.base}/_emulator/accounts/{account['id']}/snapshot").json()
    objects = [dict(template, id=f"cus_tie{i:05d}", email=f"tie{i}@example.com",
                    metadata={"n": str(i)}) for i in range(count)]
    snapshot.update(objects=objects, order={"customer": [o["id"] for o in objects]},
                    sequence=[o["id"] for o in objects], idempotency={})
    httpx.post(f"{emulator.base}/_emulator/restore", json=snapshot,
               timeout=120).raise_for_status()
    deleted = [o["id"] for o in objects[::7]]
    for object_id in deleted:
        client.v1.customers.delete(object_id)
    late = [client.v1.customers.create(params={"email": f"late{i}@example.com"}).id
            for i in range(3)]
    created_order = [o["id"] for o in objects] + late  # oldest first
    gone = set(deleted)
    live_newest_first = [i for i in reversed(created_order) if i not in gone]
    return {"account": account, "live": live_newest_first, "deleted": deleted,
            "order": created_order, "tie_created": template["created"]}


def _sdk(emulator: RunningEmulator, account: dict[str, str]) -> stripe.StripeClient:
    return stripe.StripeClient(account["secret_key"], base_addresses={"api": emulator.base})


@pytest.mark.parametrize("limit", [100, 37, 1])
def test_auto_paging_walks_every_live_customer_once_newest_first(
        emulator: RunningEmulator, crowded: dict[str, Any], limit: int) -> None:
    client = _sdk(emulator, crowded["account"])
    walked = client.v1.customers.list(params={"limit": limit}).auto_paging_iter()
    ids = [c.id for c in (walked if limit > 1 else _take(walked, 250))]
    expected = crowded["live"] if limit > 1 else crowded["live"][:250]
    assert ids == expected  # ties (one `created` for 3,000) keep creation order, newest first


def _take(items: Any, count: int) -> list[Any]:
    taken = []
    for item in items:
        taken.append(item)
        if len(taken) == count:
            break
    return taken


def test_ending_before_from_the_middle_walks_back_to_the_newest(
        emulator: RunningEmulator, crowded: dict[str, Any]) -> None:
    client = _sdk(emulator, crowded["account"])
    live = crowded["live"]
    middle = live[len(live) // 2]
    page = client.v1.customers.list(params={"limit": 100, "ending_before": middle})
    # The 100 closest newer ones, still newest first, and more beyond them.
    assert [c.id for c in page.data] == live[len(live) // 2 - 100:len(live) // 2]
    assert page.has_more is True
    backwards = [c.id for c in client.v1.customers.list(
        params={"limit": 100, "ending_before": middle}).auto_paging_iter()]
    assert sorted(backwards) == sorted(live[:len(live) // 2])
    assert len(backwards) == len(set(backwards))
    top = client.v1.customers.list(params={"limit": 5, "ending_before": live[5]})
    assert [c.id for c in top.data] == live[:5] and top.has_more is False


def test_cursors_on_deleted_customers_and_has_more_at_the_edges(
        emulator: RunningEmulator, crowded: dict[str, Any]) -> None:
    client = _sdk(emulator, crowded["account"])
    live, order = crowded["live"], crowded["order"]
    deleted = crowded["deleted"][len(crowded["deleted"]) // 2]
    position = order.index(deleted)
    older_live = [i for i in reversed(order[:position]) if i in set(live)]
    after = client.v1.customers.list(params={"limit": 10, "starting_after": deleted})
    assert [c.id for c in after.data] == older_live[:10]
    newer_live = [i for i in order[position + 1:] if i in set(live)]
    before = client.v1.customers.list(params={"limit": 10, "ending_before": deleted})
    assert [c.id for c in before.data] == list(reversed(newer_live[:10]))
    # Exactly `limit` left after the cursor: a full page and has_more false.
    last = client.v1.customers.list(params={"limit": 20, "starting_after": live[-21]})
    assert [c.id for c in last.data] == live[-20:] and last.has_more is False
    one_more = client.v1.customers.list(params={"limit": 20, "starting_after": live[-22]})
    assert len(one_more.data) == 20 and one_more.has_more is True
    # The oldest object (deleted, index 0) as a cursor: nothing after it.
    assert order[0] in crowded["deleted"]
    empty = client.v1.customers.list(params={"limit": 3, "starting_after": order[0]})
    assert empty.data == [] and empty.has_more is False
    with pytest.raises(stripe.InvalidRequestError, match="No such object"):
        client.v1.customers.list(params={"starting_after": "cus_notthere"})


def test_created_filters_over_ties(emulator: RunningEmulator, crowded: dict[str, Any]) -> None:
    client = _sdk(emulator, crowded["account"])
    tie = crowded["tie_created"]
    tied_live = [i for i in crowded["live"] if i.startswith("cus_tie")]
    exact = [c.id for c in client.v1.customers.list(
        params={"limit": 100, "created": tie}).auto_paging_iter()]
    assert exact == tied_live
    middle = tied_live[len(tied_live) // 2]
    rest = client.v1.customers.list(params={"limit": 100, "created": {"lte": tie},
                                            "starting_after": middle})
    assert [c.id for c in rest.data] == tied_live[len(tied_live) // 2 + 1:][:100]
    newer = client.v1.customers.list(params={"created": {"gt": tie}})
    assert [c.id for c in newer.data] == crowded["live"][:3]


def test_email_filter_and_exact_search_follow_updates_and_deletions(
        emulator: RunningEmulator) -> None:
    crowded = _crowd(emulator, 1500)  # its own: this test updates and deletes
    client = _sdk(emulator, crowded["account"])
    target = "cus_tie01000"
    assert client.v1.customers.list(params={"email": "tie1000@example.com"}).data[0].id == target
    found = client.v1.customers.search(params={"query": "email:'TIE1000@example.com'"})
    assert [c.id for c in found.data] == [target]  # search matches case-insensitively
    # The list filter is exact: another case finds nothing.
    assert client.v1.customers.list(params={"email": "TIE1000@example.com"}).data == []

    client.v1.customers.update(target, params={"email": "moved@example.com",
                                               "metadata": {"n": "moved"}})
    assert client.v1.customers.list(params={"email": "tie1000@example.com"}).data == []
    assert [c.id for c in client.v1.customers.list(
        params={"email": "moved@example.com"}).data] == [target]
    assert client.v1.customers.search(params={"query": "email:'tie1000@example.com'"}).data == []
    assert [c.id for c in client.v1.customers.search(
        params={"query": "metadata['n']:'moved'"}).data] == [target]
    assert client.v1.customers.search(params={"query": "metadata['n']:'1000'"}).data == []
    # OR over exact clauses is a union; AND with a substring clause still filters.
    both = client.v1.customers.search(
        params={"query": "email:'tie1002@example.com' OR metadata['n']:'moved'"})
    assert [c.id for c in both.data] == ["cus_tie01002", target]
    narrowed = client.v1.customers.search(
        params={"query": "email:'tie1002@example.com' AND email~'nomatch'"})
    assert narrowed.data == []

    client.v1.customers.delete(target)
    assert client.v1.customers.list(params={"email": "moved@example.com"}).data == []
    assert client.v1.customers.search(params={"query": "email:'moved@example.com'"}).data == []
    # Deleted restored customers never come back through the index either.
    deleted = crowded["deleted"][3]
    number = int(deleted.removeprefix("cus_tie"))
    assert client.v1.customers.search(
        params={"query": f"email:'tie{number}@example.com'"}).data == []
