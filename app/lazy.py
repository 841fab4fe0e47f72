"""Names a package hands out but imports only when first asked for (PEP 562), so that
`asiworld --help` and a command's flags never import Flask, matplotlib or the replay reader.

The engine keeps its own copy of these few lines: it imports nothing outside itself."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_names(package: str, homes: dict[str, str], namespace: dict[str, Any]
               ) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: each name of `homes` (name -> submodule) is imported
    from its submodule when first asked for and kept in `namespace` (the package's globals()),
    so it is asked once; any other name is an AttributeError, as for a plain module."""

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's own name
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{home}", package), name)
        namespace[name] = value
        return value

    return __getattr__
