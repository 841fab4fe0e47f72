"""The strategy's goals, each one job in its own module; a parameter set's `goals` names the
order they are asked in (docs/configurations.md)."""

from __future__ import annotations

from .altar import Altar
from .arms import Arms
from .base import CARRY_ON, Answer, Goal
from .busy import Busy
from .clear import Clear
from .cloth import Cloth
from .descend import Descend
from .eat import Eat
from .forage import Forage
from .home import Home
from .iron import Iron
from .leather import Leather
from .loot import Loot
from .outfit import Outfit
from .pastime import Pastime
from .program import Program
from .recover import Recover
from .sleep import Sleep
from .stove import Stove
from .supplies import Supplies
from .survive import Survive
from .tools import Tools
from .unstick import Unstick

# Every goal by its name, in the planner's order.
GOALS: dict[str, type[Goal]] = {g.name: g for g in (
    Program, Survive, Loot, Clear, Busy, Eat, Unstick, Sleep, Forage, Tools, Iron, Arms, Home,
    Cloth, Leather, Stove, Outfit, Supplies, Recover, Descend, Altar, Pastime)}

__all__ = ["CARRY_ON", "GOALS", "Answer", "Goal"]
