"""The strategy's way to a coal or iron seam (dig_route): over remembered tiles, walking open
ground and mining through rock; no route when what it has seen does not lead there. The search
is skipped when a flood fill finds no seam at all (the answer must be the same either way)."""

from __future__ import annotations

from asiworld.agents.bots.moves import dig_route
from asiworld.agents.bots.skills import MapNotes


def notes_of(rows: list[str]) -> MapNotes:
    """Remembered tiles from a picture (a space: never seen)."""
    notes = MapNotes()
    notes.tiles = {(x, y): ch for y, row in enumerate(rows) for x, ch in enumerate(row)
                   if ch != " "}
    return notes


def test_it_mines_through_rock_to_a_known_seam():
    notes = notes_of(["~~~~~~",
                      "...##i",
                      "~~~~~~"])
    assert dig_route(notes, (0, 1), "i", set()) == [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1)]


def test_it_walks_round_rock_when_walking_is_cheaper_than_mining():
    notes = notes_of([".#c",
                      "..."])
    assert dig_route(notes, (0, 0), "c", set()) == [(0, 1), (1, 1), (2, 1), (2, 0)]


def test_a_seam_beyond_unseen_tiles_or_water_has_no_route():
    assert dig_route(notes_of([".. .i"]), (0, 0), "i", set()) is None
    assert dig_route(notes_of([".~~i"]), (0, 0), "i", set()) is None


def test_tiles_to_avoid_are_not_crossed_but_the_seam_may_be_one():
    notes = notes_of(["..i"])
    assert dig_route(notes, (0, 0), "i", {(1, 0)}) is None
    assert dig_route(notes, (0, 0), "i", {(2, 0)}) == [(1, 0), (2, 0)]


def test_no_seam_of_that_kind_known_means_no_route():
    assert dig_route(notes_of(["..c.."]), (0, 0), "i", set()) is None
