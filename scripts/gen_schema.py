"""Derive the emulator's request/response schema from the installed stripe-python SDK.

Reads the SDK's typed params (TypedDicts) and resource classes with `ast` — names,
types, enums, required flags and expandable fields only, never the description texts —
and writes `src/stripebench/emulator/schema/stripe_schema.json`. Rerun after upgrading
the SDK:  .venv/bin/python scripts/gen_schema.py
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

import stripe

from stripebench.sdk_ast import REQUEST_OPTION_KEYS, union_members
from stripebench.sdk_ast import annotation as parse_expr
from stripebench.sdk_ast import name_of as _name
from stripebench.sdk_ast import subscript_args as _sub_args

SDK = Path(stripe.__file__).parent
OUT = Path(__file__).resolve().parents[1] / "src/stripebench/emulator/schema/stripe_schema.json"
PRIMITIVES = {"str": "string", "int": "integer", "bool": "boolean", "float": "number",
              "Decimal": "decimal", "Any": "any", "object": "any"}


# ---------------------------------------------------------------- params

class ParamsIndex:
    """Params TypedDicts by module: names repeat across modules (checkout vs
    financial_connections both have `SessionCreateParams`), so nested references are
    resolved inside the module that declares them."""

    def __init__(self) -> None:
        self.modules: dict[str, dict[str, ast.ClassDef]] = {}
        for path in sorted((SDK / "params").rglob("*.py")):
            module = "stripe." + ".".join(path.relative_to(SDK).with_suffix("").parts)
            tree = ast.parse(path.read_text())
            self.modules[module] = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        self.classes: dict[str, ast.ClassDef] = {}

    def for_module(self, module: str) -> ParamsIndex:
        view = ParamsIndex.__new__(ParamsIndex)
        view.modules = self.modules
        view.classes = self.modules.get(module, {})
        return view

    def object_schema(self, name: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
        cls = self.classes[name]
        props: dict[str, Any] = {}
        required: list[str] = []
        for stmt in cls.body:
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            key = stmt.target.id
            if key in REQUEST_OPTION_KEYS:
                continue
            ann = parse_expr(stmt.annotation)
            is_required = True
            if isinstance(ann, ast.Subscript) and _name(ann.value) in ("NotRequired", "Required"):
                is_required = _name(ann.value) == "Required"
                ann = parse_expr(_sub_args(ann)[0])
            if is_required:
                required.append(key)
            props[_wire_key(key)] = self.type_schema(ann, seen + (name,))
        out: dict[str, Any] = {"type": "object", "properties": props}
        if required:
            out["required"] = [_wire_key(k) for k in required]
        return out

    def type_schema(self, node: ast.expr, seen: tuple[str, ...]) -> dict[str, Any]:
        members = union_members(node)
        emptiable = False
        nullable = False
        enum: list[str] = []
        variants: list[dict[str, Any]] = []
        for m in members:
            if isinstance(m, ast.Constant) and m.value is None:
                nullable = True
                continue
            if isinstance(m, ast.Subscript) and _name(m.value) == "Literal":
                values = [a.value for a in _sub_args(m) if isinstance(a, ast.Constant)]
                if values == [""]:
                    emptiable = True
                else:
                    enum.extend(str(v) for v in values)
                continue
            variants.append(self.single(m, seen))
        if enum:
            # The SDK leaves enums open (`Literal[...] | str`) for forward compatibility;
            # the API itself rejects unknown values, so the enum wins.
            variants = [v for v in variants if v != {"type": "string"}]
            variants.insert(0, {"type": "string", "enum": enum})
        unique: list[dict[str, Any]] = []
        for v in variants:
            if v not in unique:
                unique.append(v)
        variants = unique
        result: dict[str, Any]
        if len(variants) == 1:
            result = variants[0]
        elif not variants:
            result = {"type": "string"}
        else:
            result = {"anyOf": variants}
        if emptiable:
            result = {**result, "emptiable": True}
        if nullable:
            result = {**result, "nullable": True}
        return result

    def single(self, node: ast.expr, seen: tuple[str, ...]) -> dict[str, Any]:
        node = parse_expr(node)
        if isinstance(node, ast.Subscript):
            head = _name(node.value)
            args = _sub_args(node)
            if head == "List":
                return {"type": "array", "items": self.type_schema(args[0], seen)}
            if head in ("Dict", "UntypedStripeObject", "Mapping"):
                return {"type": "map", "values": self.type_schema(args[-1], seen)}
            if head in ("NotRequired", "Required"):
                return self.type_schema(args[0], seen)
            return self.type_schema(node, seen)
        name = _name(node)
        if name in PRIMITIVES:
            return {"type": PRIMITIVES[name]}
        if name in self.classes:
            if name in seen:  # recursive structures (rare): stop at a free-form object
                return {"type": "map", "values": {"type": "any"}}
            return self.object_schema(name, seen)
        return {"type": "any"}


def _wire_key(key: str) -> str:
    # TypedDicts spell reserved words with a trailing underscore (e.g. `from_`).
    return key[:-1] if key.endswith("_") and key[:-1] in ("from", "in", "import", "class") else key


# ---------------------------------------------------------------- endpoints

def endpoints(params: ParamsIndex) -> list[dict[str, Any]]:
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for path in sorted(SDK.rglob("_*_service.py")):
        if "params" in path.parts:
            continue
        tree = ast.parse(path.read_text())
        imported = {alias.name: node.module for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom) and node.module
                    for alias in node.names}
        for cls in [n for n in tree.body if isinstance(n, ast.ClassDef)]:
            for fn in cls.body:
                if not isinstance(fn, ast.FunctionDef):
                    continue
                call = _request_call(fn)
                if call is None:
                    continue
                method, url, base = call
                params_cls = _params_class(fn)
                scope = params.for_module(imported.get(params_cls, ""))
                schema = (scope.object_schema(params_cls) if params_cls in scope.classes
                          else {"type": "object", "properties": {}})
                key = (method.upper(), url)
                found[key] = {"method": method.upper(), "path": url, "base": base,
                              "service": f"{path.stem}.{cls.name}.{fn.name}", "params": schema}
    return [found[k] for k in sorted(found)]


def _request_call(fn: ast.FunctionDef) -> tuple[str, str, str] | None:
    for node in ast.walk(fn):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("_request", "_request_stream") and len(node.args) >= 2):
            method = node.args[0]
            url = node.args[1]
            if isinstance(url, ast.Call) and isinstance(url.func, ast.Attribute):
                url = url.func.value
            if isinstance(method, ast.Constant) and isinstance(url, ast.Constant):
                base = "api"
                for kw in node.keywords:
                    if kw.arg == "base_address" and isinstance(kw.value, ast.Constant):
                        base = kw.value.value
                return str(method.value), str(url.value), base
    return None


def _params_class(fn: ast.FunctionDef) -> str:
    for arg in fn.args.args + fn.args.kwonlyargs:
        if arg.arg == "params" and arg.annotation is not None:
            for m in union_members(arg.annotation):
                n = _name(parse_expr(m))
                if n.endswith("Params"):
                    return n
    return ""


# ---------------------------------------------------------------- objects

def objects() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path in sorted(SDK.rglob("_*.py")):
        if "params" in path.parts or path.stem.endswith("_service"):
            continue
        tree = ast.parse(path.read_text())
        for cls in [n for n in tree.body if isinstance(n, ast.ClassDef)]:
            object_name = _object_name(cls)
            if object_name:
                out.setdefault(object_name, _object_fields(cls, {}))
    return out


def _object_name(cls: ast.ClassDef) -> str:
    for stmt in cls.body:
        if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                and stmt.target.id == "OBJECT_NAME" and isinstance(stmt.value, ast.Constant)):
            return str(stmt.value.value)
    return ""


def _object_fields(cls: ast.ClassDef, outer: dict[str, ast.ClassDef]) -> dict[str, Any]:
    nested = {**outer, **{n.name: n for n in cls.body if isinstance(n, ast.ClassDef)}}
    fields: dict[str, Any] = {}
    for stmt in cls.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        ann = parse_expr(stmt.annotation)
        if isinstance(ann, ast.Subscript) and _name(ann.value) == "ClassVar":
            continue
        fields[_wire_key(stmt.target.id)] = _field_type(ann, nested)
    return {"type": "object", "fields": fields}


def _field_type(node: ast.expr, nested: dict[str, ast.ClassDef]) -> dict[str, Any]:
    members = union_members(node)
    nullable = any(isinstance(m, ast.Constant) and m.value is None for m in members)
    members = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)]
    enum = [a.value for m in members
            if isinstance(m, ast.Subscript) and _name(m.value) == "Literal"
            for a in _sub_args(m) if isinstance(a, ast.Constant)]
    if enum and all(isinstance(v, bool) for v in enum):
        out: dict[str, Any] = {"type": "boolean"}
    elif enum:
        out = {"type": "string", "enum": [str(v) for v in enum]}
    elif not members:
        out = {"type": "any"}
    else:
        out = _single_field(parse_expr(members[0]), nested)
        if len(members) > 1 and out.get("type") not in ("expandable",):
            out = {"type": "any"}
    if nullable:
        out["nullable"] = True
    return out


def _single_field(node: ast.expr, nested: dict[str, ast.ClassDef]) -> dict[str, Any]:
    if isinstance(node, ast.Subscript):
        head = _name(node.value)
        args = _sub_args(node)
        if head == "ExpandableField":
            targets = [_name(parse_expr(m)) for m in union_members(args[0])]
            return {"type": "expandable", "targets": [t for t in targets if t]}
        if head == "List":
            return {"type": "array", "items": _field_type(args[0], nested)}
        if head in ("ListObject", "SearchResultObject"):
            return {"type": "list"}
        if head in ("Dict", "UntypedStripeObject"):
            return {"type": "map"}
        if head == "Optional":
            return _field_type(node, nested)
    name = _name(node)
    if name in PRIMITIVES:
        return {"type": PRIMITIVES[name]}
    if name in nested:
        return _object_fields(nested[name], nested)
    return {"type": "any", "ref": name} if name else {"type": "any"}


def main() -> None:
    params = ParamsIndex()
    schema = {"sdk_version": stripe.VERSION, "api_version": stripe.api_version,
              "endpoints": endpoints(params), "objects": objects()}
    OUT.write_text(json.dumps(schema, separators=(",", ":"), sort_keys=True))
    print(f"{len(schema['endpoints'])} endpoints, {len(schema['objects'])} objects -> {OUT}"
          f" ({OUT.stat().st_size // 1024} KiB)", file=sys.stderr)


if __name__ == "__main__":
    main()
