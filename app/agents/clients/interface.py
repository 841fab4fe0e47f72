"""The agent interface: what your own Python agent implements to play in a study.

    from asiworld.agents.interface import Decision, act, program

    class Cautious:
        def __init__(self, **params):         # the study's [configuration.params]
            self.hungry_at = params.get("hungry_at", 50)
            self.obs = {}

        def observe(self, observation: dict) -> None:
            # what the character sees now (docs/engine-interface.md, "Observation")
            self.obs = observation

        def decide(self) -> Decision:
            if self.obs["self"]["hunger"] < self.hungry_at:
                return act("eat", item="berries")
            return None                       # let the ongoing operation (or program) run

        def result(self, outcome: dict) -> None:   # optional: the answer to the last decision
            ...

A study calls `observe` then `decide` each time the agent's think time is up; the decision is an
action (`act(type, **args)`, any action of docs/engine-interface.md, "Actions"), a program
(`program(name, source)`: restricted Python that keeps acting between decisions,
docs/programs.md), or None. The world
does not wait while `decide` runs in realtime studies; in lockstep the think time is
the configuration's `think_ticks`. The agent sees only its own character's observation, never the world.
"""

from __future__ import annotations

import importlib
import sys
from importlib.machinery import PathFinder
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

from asiworld.engine import codes
from asiworld.engine.errors import CodedError

from ..bots.base import Agent
from ..bots.driver import PROGRAM

Action = dict[str, Any]
Decision = Action | None


def act(type: str, **args: Any) -> Action:
    """An action: `act("move", dir="n")`, `act("gather", x=3, y=4)`."""
    return {"type": type, **args}


def program(name: str, source: str) -> Action:
    """Hand over a program that keeps acting for the character between decisions."""
    return {"type": PROGRAM, "name": name, "source": source}


@runtime_checkable
class StudyAgent(Protocol):
    def observe(self, observation: dict[str, Any]) -> None: ...

    def decide(self) -> Decision: ...


class InterfaceError(CodedError):
    says_code = True


def _family(top: str) -> list[str]:
    return [name for name in sys.modules if name == top or name.startswith(top + ".")]


def _from_folder(module_name: str, folder: Path) -> ModuleType:
    """Import `module_name` with `folder` first on the path, then put the path back: the folder
    wins over an installed module of the same name, and the rest of the process keeps the
    modules it had (a study's `random.py` must not replace the engine's `random`)."""
    top = module_name.partition(".")[0]
    held = sys.modules.get(top)
    if held is not None and Path(getattr(held, "__file__", None) or "/").resolve().is_relative_to(
            folder.resolve()):
        return importlib.import_module(module_name)  # this folder's, imported already
    shadowed = {name: sys.modules.pop(name) for name in _family(top)}
    saved = sys.path[:]
    sys.path.insert(0, str(folder))
    importlib.invalidate_caches()
    try:
        return importlib.import_module(module_name)
    finally:
        sys.path[:] = saved
        if shadowed:
            for name in _family(top):
                del sys.modules[name]
            sys.modules.update(shadowed)


def import_agent_module(module_name: str, folder: Path | None = None) -> ModuleType:
    """The agent's module, from `folder` when it is there, else from the import path; every
    failure (absent, a syntax error, an exception while it loads) is an InterfaceError."""
    top = module_name.partition(".")[0]
    here = folder is not None and PathFinder.find_spec(top, [str(folder)]) is not None
    where = (f"in {folder} nor on the import path (sys.path)" if folder is not None
             else "on the import path (sys.path)")
    try:
        if here:
            return _from_folder(module_name, folder)  # type: ignore[arg-type]
        return importlib.import_module(module_name)
    except SyntaxError as exc:
        at = f"{Path(exc.filename or module_name).name} line {exc.lineno}"
        raise InterfaceError(codes.AGENT_NOT_FOUND, f"cannot import {module_name!r}: {at}: "
                             f"{exc.msg}") from None
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module_name + ".").startswith(exc.name + ".") and not here:
            raise InterfaceError(codes.AGENT_NOT_FOUND, f"cannot import {module_name!r}: no "
                                 f"module {exc.name!r} {where}") from None
        raise InterfaceError(codes.AGENT_NOT_FOUND,
                             f"cannot import {module_name!r}: {exc}") from None
    except Exception as exc:  # the user's module raised while loading
        raise InterfaceError(codes.AGENT_NOT_FOUND, f"cannot import {module_name!r}: loading it "
                             f"raised {type(exc).__name__}: {exc}") from None


def load_agent_class(target: str, folder: Path | None = None) -> type:
    """The class named by `module:Class`; InterfaceError when it is not there or is not an
    agent (it needs `observe` and `decide`). `folder` (a study file's own) is searched before
    the import path, so a study runs beside its agents without PYTHONPATH."""
    module_name, _, cls_name = target.partition(":")
    module = import_agent_module(module_name, folder)
    cls = getattr(module, cls_name, None)
    if not isinstance(cls, type):
        raise InterfaceError(codes.AGENT_NOT_FOUND, f"{module_name!r} has no class {cls_name!r}")
    missing = [m for m in ("observe", "decide") if not callable(getattr(cls, m, None))]
    if missing:
        raise InterfaceError(
            codes.NOT_AN_AGENT,
            f"{target} lacks {' and '.join(missing)}: an agent implements observe(observation) "
            "and decide() (asiworld.agents.interface)",
        )
    return cls


class InterfaceSeat(Agent):
    """A StudyAgent seen as the driver's Agent: decide(obs) = observe(obs) then decide()."""

    def __init__(self, user: Any, think_ticks: int) -> None:
        super().__init__(seed=0, think_ticks=max(1, think_ticks))
        self.user = user
        self.name = type(user).__name__

    def decide(self, obs: dict[str, Any]) -> Decision:
        self.user.observe(obs)
        return self.user.decide()

    @property
    def intent(self) -> str:  # type: ignore[override]
        """The agent's own `intent`, if it keeps one (a few words /live shows after "to")."""
        value = getattr(self.user, "intent", "")
        return value if isinstance(value, str) else ""

    def feedback(self, result: dict[str, Any]) -> None:
        answer = getattr(self.user, "result", None)
        if callable(answer):
            answer(result)


def make_interface_agent(target: str, params: dict[str, Any], think_ticks: int = 3,
                         folder: Path | None = None) -> Agent:
    cls = load_agent_class(target, folder)
    try:
        user = cls(**params)
    except TypeError as exc:
        raise InterfaceError(codes.BAD_PARAMS,
                             f"{target}({', '.join(params)}) failed: {exc}") from None
    return InterfaceSeat(user, think_ticks)
