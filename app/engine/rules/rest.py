"""sleep in an owned bed, wake, wait, and say."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import codes
from ..errors import Refusal
from ..handlers import Arg, Handler, register
from ..model import Character, Op
from .combat import wake
from .common import chebyshev

if TYPE_CHECKING:
    from ..world import World


def _bed_next_to(world: World, char: Character) -> tuple[int, int] | None:
    area = world.area_of(char)
    for (x, y), s in area.structures.items():
        if s.kind == "bed" and s.owner == char.id and chebyshev(char.x, char.y, x, y) <= 1:
            return (x, y)
    return None


def _check_sleep(world: World, char: Character, args: dict) -> None:
    if _bed_next_to(world, char) is None:
        raise Refusal(codes.NO_BED, f"{char.name} can sleep only next to a bed of its own")


def _begin_sleep(world: World, char: Character, op: Op) -> None:
    char.asleep = True
    world.emit("slept", char=char.id)


def _sleep(world: World, char: Character, op: Op) -> bool:
    # Waking (dawn, damage, request) ends the operation from outside; until then it runs.
    op.wait = 1
    return not char.asleep


def _cancel_sleep(world: World, char: Character, op: Op) -> None:
    if char.asleep:
        char.asleep = False
        world.emit("woke", char=char.id, reason="request")


register(Handler("sleep", "rest", {}, _check_sleep, _sleep, begin=_begin_sleep,
                 cancel=_cancel_sleep, recheck=False,
                 help="sleep next to your own bed until dawn, damage, or wake"))


def _check_wake(world: World, char: Character, args: dict) -> None:
    if not char.asleep:
        raise Refusal(codes.BAD_ARGUMENT, f"{char.name} is not asleep")


def _wake(world: World, char: Character, op: Op) -> bool:
    wake(world, char, "request")
    return True


register(Handler("wake", "rest", {}, _check_wake, _wake, while_asleep=True,
                 help="wake up"))


def _begin_wait(world: World, char: Character, op: Op) -> None:
    op.wait = op.args.get("ticks", 1)


def _wait(world: World, char: Character, op: Op) -> bool:
    op.result = {"ticks": op.args.get("ticks", 1)}
    return True


register(Handler("wait", "idle", {"ticks": Arg("int", required=False, default=1, low=1,
                                              high=600, help="how many ticks to wait")},
                 lambda world, char, args: None, _wait, begin=_begin_wait,
                 help="do nothing for a number of ticks"))


def _say(world: World, char: Character, op: Op) -> bool:
    world.emit("said", char=char.id, text=op.args["text"], x=char.x, y=char.y, area=char.area)
    return True


register(Handler("say", "communication", {"text": Arg("str", max_len=200, min_len=0, help="what to say")},
                 lambda world, char, args: None, _say, interrupts=False, while_asleep=True,
                 help="say something (up to 200 characters) to those nearby"))
