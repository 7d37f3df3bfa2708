"""Resource handlers, one module per family. Importing a module registers its routes."""

from __future__ import annotations

from importlib import import_module
from pkgutil import iter_modules


def load_all() -> None:

    for info in iter_modules(__path__):
        if not info.name.startswith("_"):
            import_module(f"{__name__}.{info.name}")
