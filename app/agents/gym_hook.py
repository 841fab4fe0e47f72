"""Registers the ASIWorld ids when Gymnasium is imported, without importing Gymnasium first.

The wheel ships `asiworld-gymnasium.pth` (setup.py), whose one line imports this module when
Python starts: it only puts a finder on `sys.meta_path`. The first `import gymnasium` then runs
Gymnasium as usual and, right after, asiworld.agents.gym_register.register_envs(), so
`gymnasium.make("ASIWorld-v0")` works in any program of that environment. Nothing else is
imported until then, and the finder removes itself after that one import.
"""

from __future__ import annotations

import importlib.util
import sys
from importlib.abc import MetaPathFinder
from typing import Any


class AfterGymnasium(MetaPathFinder):
    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "gymnasium":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        run = loader.exec_module

        def exec_module(module: Any) -> None:
            run(module)
            try:
                from asiworld.agents.gym_register import register_envs

                register_envs()
            except Exception as err:  # a broken registration must not break Gymnasium
                print(f"asiworld: could not register the Gymnasium ids: {err}", file=sys.stderr)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install() -> None:
    if "gymnasium" in sys.modules:  # imported before us (not at start-up): register now
        from asiworld.agents.gym_register import register_envs

        register_envs()
    elif not any(isinstance(f, AfterGymnasium) for f in sys.meta_path):
        sys.meta_path.insert(0, AfterGymnasium())


install()
