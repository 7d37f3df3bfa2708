"""Stripe's search query language.

    email:'jane@example.com' AND metadata['order']:'42'
    name~'jan' OR -status:'canceled'
    amount>=1000   created>1700000000   currency:null

Up to 10 clauses, joined by AND or OR (either case; not both in one query, as Stripe
requires) or by a space, which means AND. `field:'v'` is an exact (case-insensitive)
match, `field~'v'` a substring match of at least 3 characters, `-` negates, and numeric
fields take `> >= < <= =` with a bare or quoted number.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import InvalidRequest
from .indexes import TypeWalk, path_value, query_keys
from .listing import check_limit
from .render import hidden_unless_expanded

if TYPE_CHECKING:
    from .context import Ctx

Getter = Callable[[dict[str, Any]], Any]

# Stripe sends a search's `total_count` only with `expand[]=total_count`.
hidden_unless_expanded("search_result", "total_count")

_CLAUSE = re.compile(
    r"""\s*(?P<neg>-)?(?P<field>[a-z_][a-z0-9_.]*)(?:\[['"](?P<key>[^'"]+)['"]\])?\s*
        (?P<op>:|~|>=|<=|>|<|=)\s*
        (?:'(?P<sq>(?:[^'\\]|\\.)*)'|"(?P<dq>(?:[^"\\]|\\.)*)"|(?P<bare>[^\s]+))\s*""",
    re.VERBOSE | re.IGNORECASE)


COMPARISONS = (">", ">=", "<", "<=", "=")
MAX_CLAUSES = 10


@dataclass
class Clause:
    negate: bool
    field: str
    key: str | None
    op: str
    value: str | None  # None means `null`
    numeric: bool


def parse(query: str) -> tuple[str, list[Clause]]:
    if not query or not query.strip():
        raise InvalidRequest("The search query cannot be empty.", param="query")
    clauses: list[Clause] = []
    joins: set[str] = set()
    pos = 0
    text = query.strip()
    while pos < len(text):
        found = _CLAUSE.match(text, pos)
        if not found:
            raise InvalidRequest(f"Invalid search query: could not parse '{text[pos:]}'.",
                                 param="query")
        quoted = found.group("sq") if found.group("sq") is not None else found.group("dq")
        bare = found.group("bare")
        value: str | None
        if quoted is not None:
            value, numeric = quoted.replace("\\'", "'").replace('\\"', '"'), False
        elif bare is not None and bare.lower() == "null":
            value, numeric = None, False
        elif bare is not None and re.fullmatch(r"-?\d+(\.\d+)?", bare):
            value, numeric = bare, True
        else:
            raise InvalidRequest(f"Invalid search query: values must be quoted ('{bare}').",
                                 param="query")
        op = found.group("op")
        if op == "~" and (value is None or len(value) < 3):
            raise InvalidRequest("Substring searches need at least 3 characters.", param="query")
        if op in COMPARISONS:
            if value is None or not re.fullmatch(r"-?\d+(\.\d+)?", value):
                raise InvalidRequest(f"Invalid search query: `{found.group(0).strip()}` compares "
                                     "with a value that is not a number.", param="query")
            numeric = True
        clauses.append(Clause(bool(found.group("neg")), found.group("field").lower(),
                              found.group("key"), found.group("op"), value, numeric))
        pos = found.end()
        join = re.match(r"(AND|OR)\s+", text[pos:], re.IGNORECASE)
        if join:
            joins.add(join.group(1).upper())
            pos += join.end()
            if pos >= len(text):
                raise InvalidRequest(f"Invalid search query: nothing after {join.group(1)}.",
                                     param="query")
        elif pos < len(text):
            joins.add("AND")  # clauses separated by a space are ANDed
    if len(clauses) > MAX_CLAUSES:
        raise InvalidRequest(f"Search queries can have at most {MAX_CLAUSES} clauses; this one "
                             f"has {len(clauses)}.", param="query")
    if len(joins) > 1:
        raise InvalidRequest("Search queries cannot mix AND and OR.", param="query")
    return (joins.pop() if joins else "AND"), clauses


def _test(clause: Clause, actual: Any) -> bool:
    if clause.value is None:
        result = actual is None or actual == ""
    elif clause.op in COMPARISONS:
        if not isinstance(actual, (int, float)) or isinstance(actual, bool):
            return clause.negate
        bound = float(clause.value)
        result = {">": actual > bound, ">=": actual >= bound, "<": actual < bound,
                  "<=": actual <= bound, "=": actual == bound}[clause.op]
    elif actual is None:
        result = False
    elif clause.op == "~":
        result = clause.value.lower() in str(actual).lower()
    elif isinstance(actual, bool):
        result = str(actual).lower() == clause.value.lower()
    elif isinstance(actual, (int, float)):
        result = (clause.numeric and float(clause.value) == float(actual)) or (
            str(actual) == clause.value)
    else:
        result = str(actual).lower() == clause.value.lower()
    return not result if clause.negate else result


def search(ctx: Ctx, items: Iterable[dict[str, Any]], params: dict[str, Any], url: str,
           fields: dict[str, Getter]) -> dict[str, Any]:
    """Run `params['query']` over `items` (newest first); `fields` maps searchable names."""
    join, clauses = parse(str(params.get("query", "")))
    for clause in clauses:
        if clause.field not in fields and clause.field != "metadata":
            supported = ", ".join(sorted(fields))
            raise InvalidRequest(f"Field '{clause.field}' is an unsupported search field for "
                                 f"this resource. Supported: {supported}, metadata.",
                                 param="query")

    def value_of(obj: dict[str, Any], clause: Clause) -> Any:
        if clause.field == "metadata":
            return (obj.get("metadata") or {}).get(clause.key or "")
        return fields[clause.field](obj)

    def matches(obj: dict[str, Any]) -> bool:
        results = (_test(c, value_of(obj, c)) for c in clauses)
        return all(results) if join == "AND" else any(results)

    limit = check_limit(params)
    page_token = params.get("page")
    skip = 0
    if page_token:
        try:
            skip = int(str(page_token).removeprefix("page_"))
            if skip < 0:
                raise ValueError(page_token)
        except ValueError:
            raise InvalidRequest("Invalid page token.", param="page") from None
    if isinstance(items, TypeWalk):
        items = _narrow(items, join, clauses, fields)
    hits = [o for o in items if matches(o)]
    data = hits[skip:skip + limit]
    has_more = len(hits) > skip + limit
    return {"object": "search_result", "data": data, "has_more": has_more,
            "next_page": f"page_{skip + limit}" if has_more else None, "url": url,
            "total_count": len(hits)}


def _narrow(walk: TypeWalk, join: str, clauses: list[Clause],
            fields: dict[str, Getter]) -> TypeWalk:
    """Only the objects that the field indexes say an exact clause can match.

    AND: the smallest set among its exact clauses; OR: the union, when every clause is
    an exact one. Anything else (substrings, comparisons, negations, null) walks it all.
    """
    if walk.index is None:
        return walk
    sets: list[set[str]] = []
    for clause in clauses:
        path = _path_of(clause, fields)
        if clause.op != ":" or clause.negate or clause.value is None or path is None:
            if join == "OR":
                return walk
            continue
        sets.append(walk.index(path).lookup(query_keys(clause.value)))
    if not sets:
        return walk
    if join == "OR":
        return walk.only(set().union(*sets))
    return walk.only(min(sets, key=len))


def _path_of(clause: Clause, fields: dict[str, Getter]) -> tuple[str, ...] | None:
    if clause.field == "metadata":
        return ("metadata", clause.key) if clause.key else None
    getter = fields.get(clause.field)
    return getter.path if isinstance(getter, FieldGetter) else None


class FieldGetter:
    """A getter for a (nested) field that an index can serve: field("customer_details",
    "email")."""

    def __init__(self, path: tuple[str, ...]) -> None:
        self.path = path

    def __call__(self, obj: dict[str, Any]) -> Any:
        return path_value(obj, self.path)


def field(*path: str) -> Getter:
    return FieldGetter(path)
