"""The MCP SDK's stdio server, imported for `asiworld mcp` without what it does not use.

`import mcp.server.lowlevel` runs `mcp/__init__` (the SDK's client, its session group, the
streamable-HTTP client) and `mcp/server/__init__` (MCPServer, the decorator framework) before
the low-level server: about 120 modules the stdio server never touches. And pydantic builds a
validator and serializer for each of the SDK's some 550 protocol models (two protocol eras)
when its class is made, though a session uses a few dozen of them.

`import_stdio_server()` registers the two packages without running their `__init__` (a package
module whose first missing attribute runs it, so `mcp.Client` still works if something asks),
and tells pydantic to build each model's schema at its first use instead of at class creation
(pydantic's `defer_build`, for every model and type adapter made afterwards in the process).
The models, their fields and their validation are the SDK's own: only when the work is done
changes. Only the `asiworld mcp` process does this, before anything imports the SDK; in a
process that already has `mcp` it does nothing.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from typing import Any

# The packages whose __init__ the stdio server can do without (it imports only their submodules).
PACKAGES = ("mcp", "mcp.server")


def import_stdio_server() -> None:
    """Import `mcp.server.lowlevel` and `mcp.server.stdio` as cheaply as the SDK allows."""
    if "mcp" not in sys.modules:
        defer_pydantic_builds()
        for name in PACKAGES:
            sys.modules[name] = _package_on_demand(name)
        sys.modules["mcp"].server = sys.modules["mcp.server"]  # as importing it would bind it
    import mcp.server.lowlevel  # noqa: F401
    import mcp.server.stdio  # noqa: F401


def defer_pydantic_builds() -> None:
    """Every pydantic model and type adapter made from now on builds its schema when first used.
    Models inherit BaseModel's config (an explicit `defer_build=False` keeps its own); a type
    adapter of a union has no config of its own to carry the setting, hence the property."""
    import pydantic

    pydantic.BaseModel.model_config["defer_build"] = True
    pydantic.TypeAdapter._defer_build = property(lambda self: True)  # type: ignore[assignment]


def _package_on_demand(name: str) -> types.ModuleType:
    """The package `name` with its submodules importable and its own `__init__` not yet run: the
    first attribute it lacks runs it (the submodules imported so far stay as they are)."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    package = importlib.util.module_from_spec(spec)
    state = {"ran": False}

    def __getattr__(attribute: str) -> Any:
        if attribute.startswith("__") or state["ran"]:
            raise AttributeError(f"module {name!r} has no attribute {attribute!r}")
        state["ran"] = True
        del package.__dict__["__getattr__"]  # the real namespace answers from now on
        spec.loader.exec_module(package)
        return getattr(package, attribute)

    package.__getattr__ = __getattr__  # type: ignore[method-assign]
    return package
