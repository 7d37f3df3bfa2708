"""Render the SDK model as API-reference sections.

Each API method becomes one section (verb, path, client calls, description, every
top-level parameter), and each top-level parameter that has nested fields gets its own
section with the full tree, so a query about `custom_fields` lands on a passage about
`custom_fields` rather than on the whole (very long) Checkout Session create page.
Objects are rendered the same way: one section with the fields, plus one per nested field.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .corpus import Section
from .node_sdk import node_methods, path_key
from .sdk_model import Field, Method, ObjectDoc, SdkModel

# Parameters on nearly every endpoint: listed on the method page, never their own section.
COMMON_PARAMS = {"expand", "metadata", "limit", "starting_after", "ending_before",
                 "created", "page"}
MAX_ENUM = 80
API_URL = "https://docs.stripe.com/api"


def resource_of(method: Method) -> str:
    """`/v1/checkout/sessions/{session}/expire` + `expire` -> `checkout.sessions`."""
    segments = [s for s in method.path.strip("/").split("/") if s and not s.startswith("{")]
    version = segments.pop(0) if segments and re.fullmatch(r"v\d+", segments[0]) else "v1"
    last = segments[-1] if segments else ""
    # `/invoices/{id}/finalize` served by `finalize_invoice` is an action, not a resource.
    if len(segments) > 1 and (last == method.name or method.name.startswith(last + "_")
                              or method.name.endswith("_" + last)):
        segments.pop()
    prefix = "" if version == "v1" else f"{version}."
    return prefix + ".".join(segments)


def node_name(m: Method) -> str:
    """The stripe-node call for `m`: read from the installed node SDK when there is one."""
    return node_methods().get(path_key(m.http_method, m.path)) or node_call(m.python)


def node_call(python: str) -> str:
    """Fallback: client.v1.payment_intents.capture -> stripe.paymentIntents.capture."""
    if not python:
        return ""
    parts = python.split(".")[1:]
    if parts and parts[0] == "v1":
        parts = parts[1:]
    if parts and parts[-1] == "delete":
        parts[-1] = "del"
    camel = [p.split("_")[0] + "".join(w.title() for w in p.split("_")[1:]) for p in parts]
    return "stripe." + ".".join(camel)


def _human(resource: str) -> str:
    return resource.replace(".", " ").replace("_", " ")


def _type_label(f: Field) -> str:
    bits = [f.type]
    bits.append("required" if f.required else "optional")
    if f.nullable:
        bits.append("nullable")
    return ", ".join(bits)


def _enum_text(f: Field) -> str:
    if not f.enum:
        return ""
    shown = ", ".join(f"`{v}`" for v in f.enum[:MAX_ENUM])
    more = f" (and {len(f.enum) - MAX_ENUM} more)" if len(f.enum) > MAX_ENUM else ""
    return f" One of: {shown}{more}."


def _line(path: str, f: Field, depth: int, with_required: bool) -> str:
    label = _type_label(f) if with_required else (f.type + (", nullable" if f.nullable else ""))
    desc = " ".join(f.description.split())
    text = f"{'  ' * depth}- `{path}` ({label})"
    if desc or f.enum:
        text += f": {desc}{_enum_text(f)}".rstrip()
    return text


def field_tree(f: Field, path: str, depth: int, with_required: bool) -> Iterator[str]:
    yield _line(path, f, depth, with_required)
    for child in f.children:
        yield from field_tree(child, f"{path}.{child.name}", depth + 1, with_required)


def _all_names(f: Field) -> Iterator[str]:
    for child in f.children:
        yield child.name
        yield from _all_names(child)


def method_sections(m: Method, doc_id: str, resource: str) -> Iterator[Section]:
    call = f"{m.http_method} {m.path}"
    node = node_name(m)
    title = f"{_human(resource)} — {m.name.replace('_', ' ')} ({call})"
    lines = [call]
    if m.python:
        ids = "".join(f"{a}, " for a in re.findall(r"\{(\w+)\}", m.path))
        lines.append(f"Python: `{m.python}({ids}params={{...}})`  Node: `{node}({ids}{{...}})`")
    if m.description:
        lines += ["", m.description]
    if m.returns:
        lines += ["", f"Returns a `{m.returns}` object (see api/{m.returns}/object)."]
    if m.params:
        lines += ["", "Parameters:"]
        for p in m.params:
            lines.append(_line(p.name, p, 0, True))
            if p.children:
                names = ", ".join(c.name for c in p.children[:25])
                detail = (f" — details: {doc_id}#{p.name}" if p.name not in COMMON_PARAMS
                          else "")
                lines.append(f"  - fields: {names}{detail}")
    else:
        lines += ["", "No parameters."]
    keywords = " ".join([resource, m.name, m.python, node, m.returns, m.path])
    anchor = resource.replace(".", "/")
    yield Section(doc_id, title, "\n".join(lines), "api", keywords,
                  f"{API_URL}/{anchor}/{m.name}")
    for p in m.params:
        if not p.children or p.name in COMMON_PARAMS:
            continue
        body = [f"Parameter `{p.name}` of {call} ({m.python or resource + '.' + m.name})", ""]
        body += list(field_tree(p, p.name, 0, True))
        yield Section(f"{doc_id}#{p.name}",
                      f"{p.name} — parameter of {_human(resource)} {m.name} ({call})",
                      "\n".join(body), "api",
                      " ".join([p.name, resource, m.name, *_all_names(p)]),
                      f"{API_URL}/{anchor}/{m.name}#{p.name}")


def object_sections(o: ObjectDoc, resources: list[str]) -> Iterator[Section]:
    doc_id = f"api/{o.name}/object"
    lines = [f"The `{o.name}` object."]
    if o.description:
        lines += ["", o.description]
    if resources:
        lines += ["", "API methods: " + ", ".join(f"api/{r}" for r in resources)]
    lines += ["", "Fields:"]
    for f in o.fields:
        lines.append(_line(f.name, f, 0, False))
        if f.children:
            lines.append(f"  - fields: {', '.join(c.name for c in f.children[:25])}"
                         f" — details: {doc_id}#{f.name}")
    title = f"The {o.name} object ({o.class_name}) — fields"
    yield Section(doc_id, title, "\n".join(lines), "object",
                  " ".join([o.name, o.class_name, *resources]),
                  f"{API_URL}/{o.name.replace('.', '/')}/object")
    for f in o.fields:
        if not f.children or f.name in COMMON_PARAMS:
            continue
        body = [f"Field `{f.name}` of the `{o.name}` object", ""]
        body += list(field_tree(f, f.name, 0, False))
        yield Section(f"{doc_id}#{f.name}", f"{f.name} — field of the {o.name} object",
                      "\n".join(body), "object", " ".join([f.name, o.name, *_all_names(f)]),
                      f"{API_URL}/{o.name.replace('.', '/')}/object#{f.name}")


def resource_overview(resource: str, methods: list[tuple[str, Method]]) -> Section:
    objects = sorted({m.returns for _, m in methods if m.returns})
    lines = [f"API resource `{resource}`."]
    if objects:
        lines.append("Objects: " + ", ".join(f"`{o}` (api/{o}/object)" for o in objects))
    lines += ["", "Methods:"]
    for doc_id, m in methods:
        summary = m.description.split("\n")[0] if m.description else ""
        lines.append(f"- {m.http_method} {m.path} — `{m.python or m.name}` — {doc_id}. {summary}")
    return Section(f"api/{resource}", f"{_human(resource)} API — all methods",
                   "\n".join(lines), "api", " ".join([resource, *objects]),
                   f"{API_URL}/{resource.replace('.', '/')}")


def api_sections(model: SdkModel) -> Iterator[Section]:
    yield Section(
        "api/overview", "Stripe API reference (generated from the installed SDK)",
        f"Generated from stripe-python {model.version}, which pins API version "
        f"`{model.api_version}`: parameters and fields are those of that version. "
        f"{len(model.methods)} methods and {len(model.objects)} object types. Method pages "
        "are `api/<resource>/<method>` (e.g. api/checkout.sessions/create), nested "
        "parameters `api/<resource>/<method>#<param>`, objects `api/<object>/object`.",
        "api", "reference api version sdk")
    by_resource: dict[str, list[tuple[str, Method]]] = {}
    used: set[str] = set()
    for m in model.methods:
        resource = resource_of(m)
        doc_id = f"api/{resource}/{m.name}"
        n = 2
        while doc_id in used:  # same name on one resource (rare): keep ids unique
            doc_id = f"api/{resource}/{m.name}-{n}"
            n += 1
        used.add(doc_id)
        by_resource.setdefault(resource, []).append((doc_id, m))
        yield from method_sections(m, doc_id, resource)
    returns_to_resources: dict[str, list[str]] = {}
    for resource, methods in sorted(by_resource.items()):
        yield resource_overview(resource, methods)
        for o in sorted({m.returns for _, m in methods if m.returns}):
            returns_to_resources.setdefault(o, []).append(resource)
    for name, obj in sorted(model.objects.items()):
        yield from object_sections(obj, returns_to_resources.get(name, []))
