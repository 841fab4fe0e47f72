"""The built-in configurations, by name. Each is an Agent that sees only its observations."""

from __future__ import annotations

import importlib
import importlib.util

from .base import Agent

# name -> "module:Class"; looked up lazily so a configuration in progress never breaks the rest.
CONFIGURATIONS: dict[str, str] = {
    "forager": "asiworld.agents.forager:Forager",
    "planner": "asiworld.agents.planner:Planner",
    "rusher": "asiworld.agents.rusher:Rusher",
    "builder": "asiworld.agents.builder:Builder",
    "random": "asiworld.agents.random_agent:RandomAgent",
}


class UnknownConfiguration(ValueError):
    pass


def available() -> list[str]:
    """Configurations whose module is present."""
    out = []
    for name, target in CONFIGURATIONS.items():
        module = target.split(":")[0]
        if importlib.util.find_spec(module) is not None:
            out.append(name)
    return out


def make_agent(name: str, seed: int = 0, think_ticks: int = 0) -> Agent:
    target = CONFIGURATIONS.get(name)
    if target is None or name not in available():
        raise UnknownConfiguration(
            f"unknown configuration {name!r}; available: {', '.join(available())}")
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)(seed=seed, think_ticks=think_ticks)
