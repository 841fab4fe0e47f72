"""Hand-built event streams for the evaluation tests (shapes of docs/engine-interface.md)."""

from __future__ import annotations

from typing import Any

Event = dict[str, Any]
ADA, BOB, CY = 1, 2, 3
CHARACTERS = [
    {"id": ADA, "name": "ada", "label": "planner"},
    {"id": BOB, "name": "bob", "label": "rusher"},
]


def ev(tick: int, kind: str, char: int | None = ADA, **fields: Any) -> Event:
    event: Event = {"tick": tick, "kind": kind}
    if char is not None:
        event["char"] = char
    event.update(fields)
    return event


def day_report(tick: int, day: int, downs: int = 0, char: int = ADA) -> Event:
    return ev(tick, "day_report", char, day=day, downs=downs)


def night_report(tick: int, day: int, damage: int = 0, char: int = ADA) -> Event:
    return ev(tick, "night_report", char, day=day, damage=damage)


def bed(tick: int, usable: bool = True, char: int = ADA) -> Event:
    return ev(tick, "bed", char, usable=usable)


def equipped(tick: int, slot: str, item: str, self_crafted: bool = True, char: int = ADA) -> Event:
    return ev(tick, "equipped", char, slot=slot, item=item, self_crafted=self_crafted)


def unequipped(tick: int, slot: str, item: str, char: int = ADA) -> Event:
    return ev(tick, "unequipped", char, slot=slot, item=item, self_crafted=True)


def crafted(
    tick: int, item: str, category: str = "tool", cooking: bool = False, count: int = 1, char=ADA
) -> Event:
    return ev(
        tick, "crafted", char, recipe=item, item=item, count=count, station="workbench",
        category=category, cooking=cooking,
    )  # fmt: skip


def home(tick: int, area: int, locked: bool, char: int = ADA) -> Event:
    return ev(tick, "home", char, area=area, locked=locked)


def expedition(
    start: int,
    tier: int,
    *,
    expedition_id: int,
    char: int = ADA,
    party: list[int] | None = None,
    boss: bool = True,
    alive: bool = True,
    damage: int = 0,
    supplies: int = 0,
    length: int = 300,
) -> list[Event]:
    """Entry, boss (when defeated) and exit of one dungeon expedition."""
    party = party or [char]
    solo = len(party) == 1
    common = {"tier": tier, "instance": 100 + expedition_id, "expedition": expedition_id}
    events = [ev(start, "dungeon_entered", char, party=party, solo=solo, **common)]
    if boss:
        boss_name = {1: "gatekeeper", 2: "high_priest", 3: "tomb_king", 4: "shadow_king"}[tier]
        events.append(ev(start + length - 10, "boss_defeated", char, boss=boss_name, **common))
    events.append(
        ev(
            start + length, "dungeon_left", char, cleared=boss, alive=alive, damage=damage,
            supplies=supplies, coins=20, kills=6, start=start, end=start + length, **common,
        )
    )  # fmt: skip
    return events


def foothold_stream(char: int = ADA) -> list[Event]:
    """Everything stage 1 needs, the last piece (the bed) arriving at tick 2000."""
    return [
        crafted(100, "wooden_sword", "weapon", char=char),
        equipped(110, "weapon", "wooden_sword", char=char),
        day_report(1800, 1, downs=0, char=char),
        bed(2000, True, char=char),
    ]


COHORT = [
    {"id": 1, "name": "planner", "label": "planner"},
    {"id": 2, "name": "rusher", "label": "rusher"},
    {"id": 3, "name": "builder", "label": "builder"},
    {"id": 4, "name": "forager", "label": "forager"},
    {"id": 5, "name": "random", "label": "random"},
]
_MIX = {
    1: {"movement": 40, "gathering": 30, "crafting": 25, "building": 10, "combat": 30,
        "consumption": 8, "trade": 3, "rest": 9, "dungeon": 12, "communication": 1, "idle": 5},
    2: {"movement": 50, "gathering": 8, "crafting": 4, "combat": 60, "consumption": 4,
        "dungeon": 18, "idle": 2},
    3: {"movement": 30, "gathering": 40, "crafting": 35, "building": 45, "rest": 9, "idle": 6},
    4: {"movement": 60, "gathering": 70, "crafting": 6, "consumption": 20, "rest": 4},
    5: {"movement": 25, "gathering": 5, "combat": 5, "communication": 12, "idle": 40, "trade": 2},
}  # fmt: skip


def cohort_stream() -> list[Event]:
    """A small five-configuration run with different strengths, for report and figure tests."""
    events: list[Event] = [
        ev(0, "joined", c["id"], name=c["name"], label=c["label"], x=64, y=64) for c in COHORT
    ]
    for cid, mix in _MIX.items():
        op = 0
        for category, n in mix.items():
            for i in range(n):
                op += 1
                events.append(
                    ev(5 + i, "action", cid, op=op, type=category, category=category, args={})
                )
    for day in range(1, 11):
        for cid in (1, 2, 3, 4, 5):
            downs = 1 if (cid == 2 and day % 3 == 0) or (cid == 5 and day % 2 == 0) else 0
            events.append(day_report(day * 1800, day, downs, char=cid))
            events.append(night_report(day * 1800 - 10, day, 0 if cid in (1, 3) else 4, char=cid))
    # planner: everything, hero at the end
    events += foothold_stream(1)
    events += [crafted(1200, "cooked_meat", "food", cooking=True, char=1),
               crafted(1300, "leather_armor", "armor", char=1),
               crafted(1301, "torch", "light", char=1), crafted(1302, "torch", "light", char=1),
               equipped(1310, "armor", "leather_armor", char=1),
               home(2500, 12, True, char=1)]  # fmt: skip
    events += expedition(4000, 1, expedition_id=1, char=1, damage=10)
    events += expedition(6000, 2, expedition_id=2, char=1, damage=25, supplies=1)
    events += expedition(8000, 3, expedition_id=3, char=1, boss=False, alive=False, damage=90)
    events += expedition(10000, 3, expedition_id=4, char=1, damage=40, supplies=2)
    events += expedition(14000, 4, expedition_id=5, char=1, damage=70, supplies=3)
    events += [ev(14400, "task_complete", 1, task="exploration"),
               ev(9000, "task_complete", 1, task="production")]  # fmt: skip
    # rusher: dungeons without preparation
    events += expedition(2000, 1, expedition_id=1, char=2, boss=False, alive=False, damage=100)
    events += expedition(3000, 1, expedition_id=2, char=2, damage=60, supplies=0)
    events += expedition(5000, 2, expedition_id=3, char=2, boss=False, alive=False, damage=100)
    events += [ev(2300 + 900 * i, "down", 2, x=1, y=1, area=0, in_dungeon=True, cause="guard")
               for i in range(4)]  # fmt: skip
    # builder: a home and many crafts, a party clear with the forager
    events += [crafted(300 + i, "wall", "structure", char=3) for i in range(30)]
    events += [home(3000, 8, True, char=3), home(3600, 10, False, char=3)]
    events += expedition(7000, 1, expedition_id=1, char=3, party=[3, 4], damage=20)
    events += expedition(7000, 1, expedition_id=1, char=4, party=[3, 4], damage=15)
    events += [ev(9000 + i, "killed", 2, target=50 + i, target_kind="guard", hostile=True,
                  boss=False, in_dungeon=True) for i in range(12)]  # fmt: skip
    events += [
        ev(4100 + i, "coins", 2, amount=5, total=5 * (i + 1), source="chest") for i in range(6)
    ]
    events.append(ev(600, "incident", 5, cause="model_error", start=600, end=840))
    events.append(ev(12000, "incident", 2, cause="connection_lost", start=12000, end=12600))
    events.sort(key=lambda e: e["tick"])
    return events
