"""The built-in configurations, by name. Each is an Agent that sees only its observations.

Most are one strategy (strategy.py) with a named parameter set of
app/engine/content/configurations.toml (parameters.py); `forager` and `random` are small
classes of their own (the floor, and the quiet bot many tests seat)."""

from __future__ import annotations

import importlib
import importlib.util

from .base import Agent
from .parameters import shipped_sets
from .strategy import Strategy

# name -> "module:Class" for the configurations that are not parameter sets; looked up lazily.
CLASSES: dict[str, str] = {
    "forager": "asiworld.agents.bots.forager:Forager",
    "random": "asiworld.agents.bots.random_agent:RandomAgent",
}
# The nine-configuration cohort, in join order (docs/configurations.md).
COHORT: tuple[str, ...] = ("steady", "scripted", "brawler", "hasty", "cautious", "thrifty",
                           "light", "homebody", "reckless")


class UnknownConfiguration(ValueError):
    pass


def available() -> list[str]:
    """Every configuration name: the parameter sets, then the classes whose module is present."""
    out = list(shipped_sets())
    for name, target in CLASSES.items():
        module = target.split(":")[0]
        if importlib.util.find_spec(module) is not None:
            out.append(name)
    return out


def make_agent(name: str, seed: int = 0, think_ticks: int = 0) -> Agent:
    sets = shipped_sets()
    if name in sets:
        return Strategy(seed=seed, think_ticks=think_ticks, params=sets[name])
    target = CLASSES.get(name)
    if target is None or name not in available():
        raise UnknownConfiguration(
            f"unknown configuration {name!r}; available: {', '.join(available())}")
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)(seed=seed, think_ticks=think_ticks)
