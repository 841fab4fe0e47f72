"""A built-in character's map notes: every tile it has seen, by position, and where each kind of
source is. What is noted is what the plain rule notes, tile by tile in the order the view reads
(row after row), however the notes skip what they have seen already."""

from __future__ import annotations

from asiworld.agents.bots.skills import MapNotes
from asiworld.engine import World


class PlainNotes:
    """The rule itself: each visible tile of each view, row after row, in the order seen."""

    def __init__(self) -> None:
        self.tiles: dict[tuple[int, int], str] = {}
        self.sources: dict[str, list[tuple[int, int]]] = {ch: [] for ch in MapNotes().sources}

    def update(self, obs: dict) -> None:
        view = obs["view"]
        for i, row in enumerate(view["tiles"]):
            for j, ch in enumerate(row):
                pos = (view["x0"] + j, view["y0"] + i)
                if ch == " " or self.tiles.get(pos) == ch:
                    continue
                if self.tiles.get(pos) in self.sources:
                    self.sources[self.tiles[pos]].remove(pos)
                self.tiles[pos] = ch
                if ch in self.sources:
                    self.sources[ch].append(pos)


def a_walk(seed: int = 3) -> list[dict]:
    """What a character sees each tick walking to the corners of a small world, twice."""
    world = World.create(seed=seed, size=48)
    me = world.add_character("walker")
    seen = []
    for target in [(4, 4), (43, 6), (40, 42), (6, 40), (24, 24)] * 2:
        world.submit(me, {"type": "move_to", "x": target[0], "y": target[1]})
        for _ in range(120):
            world.step()
            seen.append(world.observe(me))
    return seen


def test_the_notes_of_a_walk_are_what_the_plain_rule_notes():
    notes, plain = MapNotes(), PlainNotes()
    walk = a_walk()
    assert len({(o["view"]["x0"], o["view"]["y0"]) for o in walk}) > 50  # it went places
    for obs in walk:
        notes.update(obs)
        plain.update(obs)
        assert list(notes.tiles.items()) == list(plain.tiles.items())  # in the order noted
    assert {ch: sorted(s) for ch, s in notes.sources.items()} \
        == {ch: sorted(s) for ch, s in plain.sources.items()}
    assert sum(map(len, notes.sources.values())) > 20


def test_a_tile_seen_changed_is_noted_again_and_leaves_its_source():
    notes = MapNotes()
    view = {"x0": 2, "y0": 3, "tiles": ["T.", " #"]}
    notes.update({"view": view})
    assert notes.tiles == {(2, 3): "T", (3, 3): ".", (3, 4): "#"}
    assert notes.sources["T"] == {(2, 3)} and notes.sources["#"] == {(3, 4)}
    notes.update({"view": {**view, "tiles": ["..", "  "]}})  # the tree felled, the rock unseen
    assert notes.tiles == {(2, 3): ".", (3, 3): ".", (3, 4): "#"}
    assert notes.sources["T"] == set() and notes.sources["#"] == {(3, 4)}
    notes.update({"view": {"x0": 0, "y0": 0, "tiles": ["c"]}})  # a view up and left of all
    assert notes.tiles[(0, 0)] == "c" and notes.sources["c"] == {(0, 0)}
