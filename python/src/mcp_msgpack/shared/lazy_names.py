"""Names a module loads on first use (its `__getattr__`), so that importing it needs neither the optional
packages nor the SDK internals behind them: `server/__init__.py` (the HTTP side) and `fastmcp.py`."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(package: str, modules: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` that imports `package.<modules[name]>` and returns its `name`."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return __getattr__
