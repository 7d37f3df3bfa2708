"""Read the installed stripe-python SDK with `ast` into a small documentation model.

Nothing is imported from the SDK except its location and version: its source files are
parsed, so reading them is fast, side-effect free and independent of import order. The
descriptions are the SDK's own docstrings (the string literal after each TypedDict /
class attribute, and each service method's docstring), read at index-build time from the
installed dependency rather than copied into this repository.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from ..sdk_ast import REQUEST_OPTION_KEYS
from ..sdk_ast import annotation as _expr
from ..sdk_ast import name_of as _name
from ..sdk_ast import subscript_args as _args
from ..sdk_ast import union_members as _union

PRIMITIVES = {"str": "string", "int": "integer", "bool": "boolean", "float": "number",
              "Decimal": "decimal", "Any": "any", "object": "any"}
RESERVED = ("from", "in", "import", "class")
MAX_DEPTH = 7  # deeper nesting exists only in rarely used payment-method options


@dataclass
class Field:
    """A request parameter or an object field, with its nested children."""

    name: str
    type: str
    description: str = ""
    required: bool = False
    enum: list[str] = field(default_factory=list)
    nullable: bool = False
    children: list[Field] = field(default_factory=list)


@dataclass
class Method:
    http_method: str
    path: str
    service_module: str
    service_class: str
    name: str
    description: str
    params: list[Field]
    returns: str = ""  # object name (e.g. "checkout.session") when known
    python: str = ""  # accessor on StripeClient, e.g. client.v1.checkout.sessions.create


@dataclass
class ObjectDoc:
    name: str  # OBJECT_NAME, e.g. "checkout.session"
    class_name: str
    description: str
    fields: list[Field]


@dataclass
class SdkModel:
    version: str
    api_version: str
    methods: list[Method]
    objects: dict[str, ObjectDoc]


def _wire(key: str) -> str:
    return key[:-1] if key.endswith("_") and key[:-1] in RESERVED else key


def _docstring_after(body: list[ast.stmt], index: int) -> str:
    nxt = body[index + 1] if index + 1 < len(body) else None
    if (isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)):
        return _clean(nxt.value.value)
    return ""


def _clean(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines()]
    return "\n".join(line for line in lines if line)


def _attributes(cls: ast.ClassDef) -> list[tuple[str, ast.expr, str]]:
    """(name, annotation, docstring) of each annotated attribute, in source order."""
    out = []
    for i, stmt in enumerate(cls.body):
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            out.append((stmt.target.id, _expr(stmt.annotation), _docstring_after(cls.body, i)))
    return out


@dataclass
class _Shape:
    """What a union annotation boils down to for documentation."""

    enum: list[str] = field(default_factory=list)
    nullable: bool = False
    rest: list[ast.expr] = field(default_factory=list)


def _shape(node: ast.expr) -> _Shape:
    shape = _Shape()
    for m in _union(node):
        m = _expr(m)
        if isinstance(m, ast.Constant) and m.value is None:
            shape.nullable = True
        elif isinstance(m, ast.Subscript) and _name(m.value) == "Literal":
            values = [a.value for a in _args(m) if isinstance(a, ast.Constant)]
            if values == [""]:
                shape.nullable = True  # `""` unsets an emptiable param
            else:
                shape.enum.extend(str(v).lower() if isinstance(v, bool) else str(v)
                                  for v in values)
        else:
            shape.rest.append(m)
    if shape.enum:  # the SDK leaves enums open with `| str`; the enum is what matters
        shape.rest = [r for r in shape.rest if _name(r) != "str"]
    return shape


# ---------------------------------------------------------------- params

class _ParamsModule:
    def __init__(self, classes: dict[str, ast.ClassDef]) -> None:
        self.classes = classes

    def fields(self, class_name: str, seen: tuple[str, ...] = ()) -> list[Field]:
        cls = self.classes.get(class_name)
        if cls is None or len(seen) > MAX_DEPTH:
            return []
        out = []
        for key, ann, doc in _attributes(cls):
            if key in REQUEST_OPTION_KEYS:
                continue
            required = True
            if isinstance(ann, ast.Subscript) and _name(ann.value) in ("NotRequired", "Required"):
                required = _name(ann.value) == "Required"
                ann = _expr(_args(ann)[0])
            f = self.describe(_wire(key), ann, seen + (class_name,))
            f.required, f.description = required, doc
            out.append(f)
        return out

    def describe(self, name: str, ann: ast.expr, seen: tuple[str, ...]) -> Field:
        shape = _shape(ann)
        kinds: list[str] = []
        children: list[Field] = []
        for r in shape.rest:
            kind, kids, inner_enum = self._kind(r, seen)
            if kind not in kinds:
                kinds.append(kind)
            children = children or kids
            shape.enum = shape.enum or inner_enum
        if shape.enum and not any(k.startswith("array of enum") for k in kinds):
            kinds.insert(0, "enum")
        return Field(name=name, type=" or ".join(kinds) or "string", enum=shape.enum,
                     nullable=shape.nullable, children=children)

    def _kind(self, node: ast.expr, seen: tuple[str, ...]
              ) -> tuple[str, list[Field], list[str]]:
        node = _expr(node)
        if isinstance(node, ast.Subscript):
            head, args = _name(node.value), _args(node)
            if head == "List":
                inner = self.describe("", args[0], seen)
                return f"array of {inner.type}", inner.children, inner.enum
            if head in ("Dict", "Mapping", "UntypedStripeObject"):
                return "map of key-value pairs", [], []
            if head in ("NotRequired", "Required", "Optional"):
                inner = self.describe("", args[0], seen)
                return inner.type, inner.children, inner.enum
            return "any", [], []
        name = _name(node)
        if name in PRIMITIVES:
            return PRIMITIVES[name], [], []
        if name in self.classes:
            if name in seen:
                return "object", [], []
            return "object", self.fields(name, seen), []
        return "any", [], []


# ---------------------------------------------------------------- objects

def _object_fields(cls: ast.ClassDef, outer: dict[str, ast.ClassDef], depth: int = 0
                   ) -> list[Field]:
    nested = {**outer, **{n.name: n for n in cls.body if isinstance(n, ast.ClassDef)}}
    out = []
    for key, ann, doc in _attributes(cls):
        if isinstance(ann, ast.Subscript) and _name(ann.value) == "ClassVar":
            continue
        f = _object_field(_wire(key), ann, nested, depth)
        f.description = doc
        out.append(f)
    return out


def _object_field(name: str, ann: ast.expr, nested: dict[str, ast.ClassDef], depth: int
                  ) -> Field:
    shape = _shape(ann)
    kinds: list[str] = ["enum"] if shape.enum else []
    children: list[Field] = []
    for r in shape.rest:
        kind, kids, inner_enum = _object_kind(r, nested, depth)
        if kind not in kinds:
            kinds.append(kind)
        children = children or kids
        shape.enum = shape.enum or inner_enum
    return Field(name=name, type=" or ".join(kinds) or "string", enum=shape.enum,
                 nullable=shape.nullable, children=children)


def _object_kind(node: ast.expr, nested: dict[str, ast.ClassDef], depth: int
                 ) -> tuple[str, list[Field], list[str]]:
    node = _expr(node)
    if isinstance(node, ast.Subscript):
        head, args = _name(node.value), _args(node)
        if head == "ExpandableField":
            targets = [_name(_expr(m)) for m in _union(args[0])]
            return f"expandable id of {' | '.join(t for t in targets if t)}", [], []
        if head == "List":
            inner = _object_field("", args[0], nested, depth)
            return f"array of {inner.type}", inner.children, inner.enum
        if head in ("ListObject", "SearchResultObject"):
            inner_name = _name(_expr(args[0])) if args else ""
            return f"list of {inner_name}".strip(), [], []
        if head in ("Dict", "UntypedStripeObject"):
            return "map of key-value pairs", [], []
        if head == "Optional":
            inner = _object_field("", node, nested, depth)
            return inner.type, inner.children, inner.enum
        return "any", [], []
    name = _name(node)
    if name in PRIMITIVES:
        return PRIMITIVES[name], [], []
    if name in nested and depth < MAX_DEPTH:
        return "object", _object_fields(nested[name], nested, depth + 1), []
    return (name or "any"), [], []


def _object_name(cls: ast.ClassDef) -> str:
    for stmt in cls.body:
        if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                and stmt.target.id == "OBJECT_NAME" and isinstance(stmt.value, ast.Constant)):
            return str(stmt.value.value)
    return ""


# ---------------------------------------------------------------- the SDK walk

def _module_name(sdk: Path, path: Path) -> str:
    return "stripe." + ".".join(path.relative_to(sdk).with_suffix("").parts)


def _imports(tree: ast.Module) -> dict[str, str]:
    """Names imported at module level or under `if TYPE_CHECKING:`."""
    stmts: list[ast.stmt] = []
    for stmt in tree.body:
        stmts.extend(stmt.body if isinstance(stmt, ast.If) else [stmt])
    return {alias.asname or alias.name: node.module for node in stmts
            if isinstance(node, ast.ImportFrom) and node.module for alias in node.names}


def _request_call(fn: ast.FunctionDef) -> tuple[str, str] | None:
    for node in ast.walk(fn):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("_request", "_request_stream") and len(node.args) >= 2):
            method, url = node.args[0], node.args[1]
            if isinstance(url, ast.Call) and isinstance(url.func, ast.Attribute):
                url = url.func.value  # "/v1/x/{id}".format(...)
            if isinstance(method, ast.Constant) and isinstance(url, ast.Constant):
                return str(method.value).upper(), str(url.value)
    return None


def _params_class(fn: ast.FunctionDef) -> str:
    for arg in fn.args.args + fn.args.kwonlyargs:
        if arg.arg == "params" and arg.annotation is not None:
            for m in _union(arg.annotation):
                n = _name(_expr(m))
                if n.endswith("Params"):
                    return n
    return ""


def _return_class(fn: ast.FunctionDef) -> str:
    if fn.returns is None:
        return ""
    node = _expr(fn.returns)
    while isinstance(node, ast.Subscript):  # ListObject[Session] -> Session
        node = _expr(_args(node)[0])
    return _name(node)


def _subservices(tree: ast.Module) -> dict[str, tuple[str, str]]:
    for stmt in tree.body:
        if (isinstance(stmt, ast.Assign) and any(_name(t) == "_subservices" for t in stmt.targets)
                and isinstance(stmt.value, ast.Dict)):
            out = {}
            for k, v in zip(stmt.value.keys, stmt.value.values, strict=False):
                if (isinstance(k, ast.Constant) and isinstance(v, ast.List) and len(v.elts) == 2
                        and all(isinstance(e, ast.Constant) for e in v.elts)):
                    mod, cls = (str(e.value) for e in v.elts if isinstance(e, ast.Constant))
                    out[str(k.value)] = (mod, cls)
            return out
    return {}


class _Sdk:
    def __init__(self, sdk_dir: Path) -> None:
        self.dir = sdk_dir
        self.trees: dict[str, ast.Module] = {}
        self.params: dict[str, Path] = {}  # parsed on demand: only what services use
        for path in sorted(sdk_dir.rglob("_*.py")):
            module = _module_name(sdk_dir, path)
            if module.startswith("stripe.params."):
                self.params[module] = path
                continue
            text = path.read_text()
            # Only services (endpoints) and resources (objects) matter; skip the HTTP plumbing.
            if module.endswith(("_service", "_services")) or "OBJECT_NAME" in text:
                self.trees[module] = ast.parse(text)

    def classes(self, module: str) -> dict[str, ast.ClassDef]:
        tree = self.trees.get(module)
        if tree is None and module in self.params:
            tree = self.trees[module] = ast.parse(self.params[module].read_text())
        return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)} if tree else {}

    def accessors(self) -> dict[tuple[str, str], str]:
        """(service module, class) -> attribute path on a StripeClient."""
        out: dict[tuple[str, str], str] = {}
        todo = [("stripe._v1_services", "client.v1"), ("stripe._v2_services", "client.v2")]
        while todo:
            module, prefix = todo.pop()
            tree = self.trees.get(module)
            if tree is None:
                continue
            for attr, (sub_module, sub_class) in _subservices(tree).items():
                if (sub_module, sub_class) not in out:
                    out[(sub_module, sub_class)] = f"{prefix}.{attr}"
                    todo.append((sub_module, f"{prefix}.{attr}"))
        return out

    def objects(self) -> tuple[dict[str, ObjectDoc], dict[tuple[str, str], str]]:
        docs: dict[str, ObjectDoc] = {}
        by_class: dict[tuple[str, str], str] = {}
        for module, tree in self.trees.items():
            if module.startswith("stripe.params.") or module.endswith("_service"):
                continue
            for cls in tree.body:
                if not isinstance(cls, ast.ClassDef):
                    continue
                name = _object_name(cls)
                if not name:
                    continue
                by_class[(module, cls.name)] = name
                if name not in docs:
                    docs[name] = ObjectDoc(name, cls.name, _clean(ast.get_docstring(cls) or ""),
                                           _object_fields(cls, {}))
        return docs, by_class

    def methods(self, by_class: dict[tuple[str, str], str]) -> list[Method]:
        accessors = self.accessors()
        found: dict[tuple[str, str], Method] = {}
        for module, tree in list(self.trees.items()):
            if not module.endswith("_service") or module.startswith("stripe.params."):
                continue
            imported = _imports(tree)
            for cls in tree.body:
                if not isinstance(cls, ast.ClassDef):
                    continue
                for fn in cls.body:
                    if not isinstance(fn, ast.FunctionDef) or fn.name.startswith("_"):
                        continue
                    call = _request_call(fn)
                    if call is None:
                        continue
                    params_cls = _params_class(fn)
                    scope = _ParamsModule(self.classes(imported.get(params_cls, "")))
                    ret = _return_class(fn)
                    accessor = accessors.get((module, cls.name), "")
                    found[call] = Method(
                        http_method=call[0], path=call[1], service_module=module,
                        service_class=cls.name, name=fn.name,
                        description=_clean(ast.get_docstring(fn) or ""),
                        params=scope.fields(params_cls) if params_cls else [],
                        returns=by_class.get((imported.get(ret, ""), ret), ""),
                        python=f"{accessor}.{fn.name}" if accessor else "")
        return [found[k] for k in sorted(found, key=lambda k: (k[1], k[0]))]


def read_sdk(sdk_dir: Path | None = None) -> SdkModel:
    """Parse the installed stripe package (or the one at `sdk_dir`)."""
    # the stripe SDK is slow to import: only when the SDK is read
    import stripe

    sdk = _Sdk(sdk_dir or Path(stripe.__file__).parent)
    objects, by_class = sdk.objects()
    return SdkModel(version=str(stripe.VERSION), api_version=str(stripe.api_version),
                    methods=sdk.methods(by_class), objects=objects)
