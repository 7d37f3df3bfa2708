"""API versions: the known list, and version changes applied to requests and responses.

Objects are stored once, in the newest shape. A request pinned to an older version
sees each object after the downgrades of every change newer than its version, newest
change first; its params pass through the matching request upgrades. Resource modules
register their changes with `@response_change` / `@request_change`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import InvalidRequest

if TYPE_CHECKING:
    from .context import Ctx

# Every public API version (oldest first). Requests naming anything else get a 400.
KNOWN_VERSIONS: tuple[str, ...] = (
    "2014-03-28", "2014-05-19", "2014-08-20", "2014-11-20", "2015-01-26", "2015-02-18",
    "2015-04-07", "2015-06-15", "2015-07-13", "2015-08-19", "2015-09-08", "2015-10-01",
    "2015-10-16", "2016-02-03", "2016-03-07", "2016-06-15", "2016-07-06", "2016-10-19",
    "2017-01-27", "2017-02-14", "2017-04-06", "2017-05-25", "2017-06-05", "2017-08-15",
    "2017-12-14", "2018-01-23", "2018-02-05", "2018-02-06", "2018-02-28", "2018-05-21",
    "2018-07-27", "2018-08-23", "2018-09-06", "2018-09-24", "2018-10-31", "2018-11-08",
    "2019-02-11", "2019-02-19", "2019-03-14", "2019-05-16", "2019-08-14", "2019-09-09",
    "2019-10-08", "2019-10-17", "2019-11-05", "2019-12-03", "2020-03-02", "2020-08-27",
    "2022-08-01", "2022-11-15", "2023-08-16", "2023-10-16", "2024-04-10", "2024-06-20",
    "2024-09-30.acacia", "2024-10-28.acacia", "2024-11-20.acacia", "2024-12-18.acacia",
    "2025-01-27.acacia", "2025-02-24.acacia", "2025-03-31.basil", "2025-04-30.basil",
    "2025-05-28.basil", "2025-06-30.basil", "2025-07-30.basil", "2025-08-27.basil",
    "2025-09-30.clover", "2025-10-29.clover", "2025-11-17.clover", "2025-12-15.clover",
    "2026-01-28.clover", "2026-02-25.clover", "2026-03-25.dahlia", "2026-04-22.dahlia",
    "2026-05-27.dahlia", "2026-06-24.dahlia", "2026-07-29.dahlia", "2026-08-26.dahlia",
    "2026-09-30.endive", "2026-10-28.endive",
)
LATEST = KNOWN_VERSIONS[-1]


# Preview betas Stripe published as `Stripe-Version` suffixes ("2023-10-16;
# embedded_connect_beta=v2"), with the versions each one had.
KNOWN_BETAS: dict[str, tuple[str, ...]] = {
    "embedded_connect_beta": ("v1", "v2"),
    "custom_checkout_beta": ("v1",),
    "checkout_server_update_beta": ("v1",),
    "embedded_checkout_beta": ("v1", "v2"),
    "server_side_confirmation_beta": ("v1",),
}


def check_version(version: str) -> str:
    """The dated version a request runs at; beta suffixes are checked and then set aside
    (they unlock previews whose shapes the dated version already has here)."""
    base, *betas = (part.strip() for part in version.split(";"))
    if base not in KNOWN_VERSIONS:
        # Stripe's answer carries only type and message (no code, no param).
        raise InvalidRequest(f"Invalid Stripe API version: {version}")
    for beta in betas:
        name, _, value = beta.partition("=")
        if value not in KNOWN_BETAS.get(name.strip(), ()):
            raise InvalidRequest(f"Invalid Stripe API version: {version} (unknown beta "
                                 f"'{beta}')")
    return base


def older_than(version: str, change_version: str) -> bool:
    """True when `version` predates `change_version` (compared by release date)."""
    return version[:10] < change_version[:10]


Downgrade = Callable[["Ctx", dict[str, Any]], None]
Upgrade = Callable[["Ctx", str, str, dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class ResponseChange:
    version: str
    object_type: str
    downgrade: Downgrade


@dataclass(frozen=True)
class RequestChange:
    version: str
    upgrade: Upgrade


RESPONSE_CHANGES: list[ResponseChange] = []
REQUEST_CHANGES: list[RequestChange] = []


def response_change(version: str, object_type: str) -> Callable[[Downgrade], Downgrade]:
    """Register a downgrade: turn a rendered `object_type` into its pre-`version` shape."""
    def register(fn: Downgrade) -> Downgrade:
        RESPONSE_CHANGES.append(ResponseChange(version, object_type, fn))
        RESPONSE_CHANGES.sort(key=lambda c: c.version, reverse=True)
        return fn
    return register


def request_change(version: str) -> Callable[[Upgrade], Upgrade]:
    """Register a request upgrade: params written for pre-`version` become current params."""
    def register(fn: Upgrade) -> Upgrade:
        REQUEST_CHANGES.append(RequestChange(version, fn))
        REQUEST_CHANGES.sort(key=lambda c: c.version, reverse=True)
        return fn
    return register


_HAS_DOWNGRADES: dict[tuple[str, int], bool] = {}


def has_downgrades(version: str) -> bool:
    """Whether any registered response change is newer than `version` (cached)."""
    key = (version, len(RESPONSE_CHANGES))
    found = _HAS_DOWNGRADES.get(key)
    if found is None:
        found = _HAS_DOWNGRADES[key] = any(older_than(version, c.version)
                                           for c in RESPONSE_CHANGES)
    return found


def downgrade(ctx: Ctx, obj: dict[str, Any]) -> None:
    object_type = obj.get("object")
    for change in RESPONSE_CHANGES:
        if change.object_type == object_type and older_than(ctx.version, change.version):
            change.downgrade(ctx, obj)


def upgrade_request(ctx: Ctx, method: str, template: str,
                    params: dict[str, Any]) -> dict[str, Any]:
    for change in reversed(REQUEST_CHANGES):  # oldest first: walk the request forward
        if older_than(ctx.version, change.version):
            params = change.upgrade(ctx, method, template, params)
    return params
