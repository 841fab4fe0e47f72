"""How the fake model plays a built-in configuration: the observation text in the prompt is read
back into the agent API's JSON shape, and a built-in configuration (the forager's or the
rusher's parameter set of app/agents/bots/strategy.py) decides on it; its decision is answered as a tool call.

The text is all the fake model sees, so what it lacks the player lacks too: the terrain under
characters, creatures and structures (left unseen), which structure a glyph shared by two kinds
is (the legend names one), events past the last eight. The sign board's landmarks (plaza,
merchant, gates, altar) are not in the text; the player learns each from the map once it has
seen its tile. Refusals come back through the prompt's recent tool results (none with
`history = 0`) and the `op_failed` events.

A player keeps its agent's notes between calls (as the built-in does), one per character name;
a prompt whose tick is earlier than the last one seen starts a new game, so the same study run
twice against one fake model plays the same way.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from typing import Any

from asiworld.engine import load_content
from asiworld.syntax_trees import literal

from ..bots import program_library
from ..bots.builtin import make_agent

PLAYERS: dict[str, str] = {"fake-forager": "forager", "fake-explorer": "rusher"}  # built-ins
DUNGEON_PROGRAM = {"fake-explorer": "steady_clear"}  # from app/agents/bots/programs/
FETCHED = {"T": "wood", "b": "berries", "f": "fibre"}  # what the forager hands to a program
FETCH_MORE = 6
FETCHER = '''# gather {more} more {item} from the nearest {kind!r} tiles (eating berries when hungry)
def nearest(code, skip):
    view = observe()["view"]
    px, py = position()
    best = None
    for row, line in enumerate(view["tiles"]):
        for col, c in enumerate(line):
            if c == code and (view["x0"] + col, view["y0"] + row) not in skip:
                x, y = view["x0"] + col, view["y0"] + row
                d = abs(x - px) + abs(y - py)
                if best is None or d < best[0]:
                    best = (d, x, y)
    return best

def main():
    goal = count({item!r}) + {more}
    skip = []
    for _ in range({tries}):
        if count({item!r}) >= goal:
            break
        if me()["hunger"] < 50 and count("berries"):
            eat("berries")
        found = nearest({kind!r}, skip)
        if found is None:
            break
        _, x, y = found
        try:
            move_to(x, y)
            gather(x, y)
        except GameError as e:
            skip.append((x, y))
    return inventory()
'''
LANDMARK_TILES = {"M": "merchant", "1": "gate_1", "2": "gate_2", "3": "gate_3", "A": "altar"}

TICK = re.compile(r"^tick (\d+) \| day (\d+) minute (\d+) \((\w+)\)$")
SELF = re.compile(
    r"^(?P<name>.+?) at \((?P<x>-?\d+), (?P<y>-?\d+)\) area (?P<area>\d+) \| health (?P<health>\d+)"
    r" hunger (?P<hunger>\d+) energy (?P<energy>\d+) coins (?P<coins>\d+)(?P<flags>.*)$")
MAP = re.compile(r"^map \(top-left is \((-?\d+), (-?\d+)\);")
ENTITY = re.compile(r"(\w+) #(\d+) at \((-?\d+), (-?\d+)\) health (-?\d+)")
PROBES = ((10, 0), (7, 7), (0, 10), (-7, 7), (-10, 0), (-7, -7), (0, -10), (7, -7))
EVENT = re.compile(r"^\[(\d+)\] (\w+) ?(.*)$")
DOING = re.compile(r"^doing: (\w+) (\{.*\})$")


@lru_cache(maxsize=1)
def _rules() -> tuple[frozenset[str], dict[str, dict], tuple[str, ...]]:
    """What a model knows from the rules: structure kinds, creatures, equipment slots."""
    content = load_content()
    slots = sorted({str(i["slot"]) for i in content.items.values() if i.get("slot")})
    return frozenset(content.structures), dict(content.creatures), tuple(slots)


def _value(text: str) -> Any:
    try:
        return literal(text)  # the stand-in answers seats on threads (syntax_trees)
    except (ValueError, SyntaxError):
        return text


def _events(line: str) -> list[dict]:
    events = []
    for part in re.split(r"; (?=\[\d+\] )", line):
        found = EVENT.match(part)
        if found is None:
            continue
        event: dict[str, Any] = {"tick": int(found.group(1)), "kind": found.group(2), "char": None}
        for field in re.split(r", (?=\w+=)", found.group(3)):
            key, sep, value = field.partition("=")
            if sep:
                event[key] = _value(value)
        events.append(event)
    return events


def observation(text: str) -> dict | None:
    """The JSON observation a text observation shows (docs/agents.md), as far as it shows it;
    None when `text` is not one."""
    structures, creatures, slots = _rules()
    lines = text.splitlines()
    head = TICK.match(lines[0]) if lines else None
    me = SELF.match(lines[1]) if len(lines) > 1 else None
    if head is None or me is None:
        return None
    tick = int(head.group(1))
    x, y = int(me.group("x")), int(me.group("y"))
    flags = me.group("flags")
    obs: dict[str, Any] = {
        "tick": tick,
        "time": {"day": int(head.group(2)), "minute": int(head.group(3)), "phase": head.group(4)},
        "self": {"id": None, "name": me.group("name"), "x": x, "y": y,
                 "area": int(me.group("area")), "health": int(me.group("health")),
                 "hunger": int(me.group("hunger")), "energy": int(me.group("energy")),
                 "coins": int(me.group("coins")), "asleep": "ASLEEP" in flags,
                 "down": "DOWN" in flags, "inventory": [], "equipment": dict.fromkeys(slots),
                 "action": None},
        "view": {"x0": 0, "y0": 0, "tiles": []},
        "entities": [], "structures": [], "floors": [], "loot": [], "events": [],
        "landmarks": {},
    }
    grid: list[str] = []
    legend: dict[str, str] = {}
    for i, line in enumerate(lines[2:], start=2):
        if line.startswith("inventory: ") and line != "inventory: empty":
            for part in line[len("inventory: "):].split(", "):
                item, _, count = part.rpartition(" x")
                if count.isdigit():
                    obs["self"]["inventory"].append({"item": item, "count": int(count)})
        elif line.startswith("equipped: ") and line != "equipped: nothing":
            for part in line[len("equipped: "):].split(", "):
                slot, _, item = part.partition(": ")
                obs["self"]["equipment"][slot] = item
        elif (doing := DOING.match(line)) is not None:
            args = _value(doing.group(2))
            obs["self"]["action"] = {"type": doing.group(1),
                                     "args": args if isinstance(args, dict) else {}}
        elif (found := MAP.match(line)) is not None:
            obs["view"]["x0"], obs["view"]["y0"] = int(found.group(1)), int(found.group(2))
            for row in lines[i + 1:]:
                if row.startswith("legend: "):
                    break
                grid.append(row)
        elif line.startswith("legend: "):
            for part in line[len("legend: "):].split(", "):
                glyph, _, name = part.partition("=")
                legend[glyph] = name
        elif line.startswith("in view: "):
            for kind, eid, ex, ey, health in ENTITY.findall(line):
                spec = creatures.get(kind, {})
                obs["entities"].append({"id": int(eid), "kind": kind, "x": int(ex), "y": int(ey),
                                        "health": int(health), "hostile": bool(spec.get("hostile")),
                                        "boss": bool(spec.get("boss"))})
        elif line.startswith("recent: "):
            obs["events"] = _events(line[len("recent: "):])
    x0, y0 = obs["view"]["x0"], obs["view"]["y0"]
    covered = {(e["x"], e["y"]) for e in obs["entities"]} | {(x, y)}
    tiles = []
    for r, row in enumerate(grid):
        cells = []
        for c, glyph in enumerate(row):
            at = (x0 + c, y0 + r)
            if legend.get(glyph) in structures:  # drawn over the ground it stands on
                obs["structures"].append({"kind": legend[glyph], "x": at[0], "y": at[1]})
                glyph = " "
            elif at in covered:
                glyph = " "
            cells.append(glyph)
        tiles.append("".join(cells))
    obs["view"]["tiles"] = tiles
    return obs


class Player:
    """One character's built-in agent behind the fake model, with what it has learnt."""

    def __init__(self, persona: str, name: str) -> None:
        seed = int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big")
        self.persona = persona
        self.agent = make_agent(PLAYERS[persona], seed=seed)
        self.tick = -1
        self.landmarks: dict[str, tuple[int, int]] = {}
        self.plaza: list[tuple[int, int]] = []
        self.last_call: str | None = None  # how the harness will show our last tool call
        self.probes = 0  # places looked at for a gate not seen yet
        self.probe = [0, 0]
        self.program_area = 0  # the dungeon instance a program was last handed for
        self.fetching: str | None = None  # the source kind the agent's last decision fetched
        # hear which kind its fetch steps are after (the strategy's moves, or the forager's)
        owner, method = (self.agent.moves, "fetch") if hasattr(self.agent, "moves") else (
            self.agent, "_fetch")
        if hasattr(owner, method):
            fetch = getattr(owner, method)

            def fetching(obs: dict, kind: str) -> dict:
                self.fetching = kind
                return fetch(obs, kind)

            setattr(owner, method, fetching)

    def decide(self, obs: dict, feedback: list[str], programs: bool = False,
               program_running: bool = False) -> tuple[str, dict] | None:
        """The tool call for this observation (None: let the current operation run). With
        `programs` (the harness offers submit_program) the explorer hands a dungeon to the
        library's steady_clear program, as the planner does: a model deciding every few dozen
        ticks cannot keep a fight's two-tick beat, a program on the world clock can."""
        self.tick = obs["tick"]
        self._feedback(feedback)
        area = obs["self"]["area"]
        if self.persona in DUNGEON_PROGRAM and programs and area != 0:
            if program_running:
                self.last_call = None
                return "wait_for_event", {"kinds": ["program_outcome", "down"],
                                          "timeout_seconds": 30}
            if self.program_area != area:  # once per instance; after it, the agent's own way
                self.program_area = area
                name = DUNGEON_PROGRAM[self.persona]
                self.last_call = None
                return "submit_program", {"name": name, "source": program_library.source(name)}
        if programs and program_running and not any(
                e["hostile"] and max(abs(e["x"] - obs["self"]["x"]),
                                     abs(e["y"] - obs["self"]["y"])) <= 1
                for e in obs["entities"]):
            self.last_call = None  # its program acts for it meanwhile
            return "wait_for_event", {"kinds": ["program_outcome"], "timeout_seconds": 30}
        self._learn(obs)
        self.fetching = None
        action = self.agent.decide(obs)
        kind = self.fetching
        if (programs and kind in FETCHED and action is not None and area == 0
                and any(kind in row for row in obs["view"]["tiles"])):
            # a run of gathers: one program does them on the world clock
            item = FETCHED[kind]
            self.last_call = None
            return "submit_program", {"name": f"fetch-{item}", "source": FETCHER.format(
                item=item, kind=kind, more=FETCH_MORE, tries=3 * FETCH_MORE)}
        here = [obs["self"]["x"], obs["self"]["y"]]
        if action is not None and action["type"] == "enter" and here not in self.gates_seen():
            self.probes += 1  # no gate here after all: look further round the plaza
            self._learn(obs)
            action = self.agent.decide(obs)
        if action is None:
            self.last_call = None
            return None
        args = {k: v for k, v in action.items() if k != "type"}
        self.last_call = self._call(action["type"], args)
        return action["type"], args

    def _feedback(self, feedback: list[str]) -> None:
        if self.last_call is None or not feedback:
            return
        line = feedback[-1]
        if line.startswith(self.last_call):
            ok = '"ok":false' not in line[len(self.last_call):]
            self.agent.feedback({"ok": ok})
            if not ok and self.last_call == self._call("move_to", {"x": self.probe[0],
                                                                    "y": self.probe[1]}):
                self.probes += 1  # no way to that place: look at the next one
        self.last_call = None

    @staticmethod
    def _call(name: str, args: dict) -> str:
        return f"{name}({json.dumps(args, separators=(',', ':'))[:200]}) -> "

    def _learn(self, obs: dict) -> None:
        """The sign board's landmarks, from the tiles seen so far."""
        if obs["self"]["area"] == 0:
            x0, y0 = obs["view"]["x0"], obs["view"]["y0"]
            for r, row in enumerate(obs["view"]["tiles"]):
                for c, glyph in enumerate(row):
                    if glyph in LANDMARK_TILES:
                        self.landmarks[LANDMARK_TILES[glyph]] = (x0 + c, y0 + r)
                    elif glyph == "=":
                        self.plaza.append((x0 + c, y0 + r))
            if len(self.plaza) > 4096:
                self.plaza = self.plaza[-1024:]
        here = (obs["self"]["x"], obs["self"]["y"])
        plaza = here
        if self.plaza:  # the plaza is a square: the middle of what was seen of it
            xs, ys = [p[0] for p in self.plaza], [p[1] for p in self.plaza]
            plaza = ((min(xs) + max(xs)) // 2, (min(ys) + max(ys)) // 2)
        known = self.landmarks
        # A gate not seen yet is somewhere round the plaza: look there, one point after another.
        dx, dy = PROBES[self.probes % len(PROBES)]
        probe = self.probe = [plaza[0] + dx, plaza[1] + dy]
        obs["landmarks"] = {
            "plaza": list(plaza),
            "merchant": list(known.get("merchant", plaza)),
            "gates": [list(known[f"gate_{t}"]) if f"gate_{t}" in known else probe
                      for t in (1, 2, 3)],
            "altar": list(known["altar"]) if "altar" in known else None,
        }

    def gates_seen(self) -> list[list[int]]:
        return [list(self.landmarks[f"gate_{t}"]) for t in (1, 2, 3)
                if f"gate_{t}" in self.landmarks]
