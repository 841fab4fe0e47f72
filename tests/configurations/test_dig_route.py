"""The strategy's way to a coal or iron seam (dig_route): over remembered tiles, walking open
ground and mining through rock; no route when what it has seen does not lead there. The search
is skipped when a flood fill finds no seam at all (the answer must be the same either way); the
fill labels the remembered map as an array, and must answer as a walk tile by tile."""

from __future__ import annotations

from asiworld.agents.bots.moves import _seam_reachable, _seam_reachable_walk, dig_route
from asiworld.agents.bots.skills import MapNotes
from hypothesis import given, settings
from hypothesis import strategies as st


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


def test_the_quick_no_is_the_same_as_the_tile_by_tile_walk():
    # Rock walls round a pocket of ground with a seam outside them: no way but through rock,
    # which is a way; avoided rock closes it; an avoided seam still counts.
    rows = ["#####i",
            "#...# ",
            "#####~"]
    tiles = notes_of(rows).tiles
    assert _seam_reachable(tiles, (2, 1), "i", set()) is True
    closed = {(x, y) for x in range(5) for y in range(3) if rows[y][x] == "#"}
    assert _seam_reachable(tiles, (2, 1), "i", closed) is False
    assert _seam_reachable(tiles, (4, 0), "i", {(5, 0)}) is True  # beside it, avoided


# Small remembered maps of every tile that matters (" ": never seen), a start anywhere (on rock,
# on the seam, outside the map) and avoided tiles anywhere.
CODES = st.sampled_from(" .,_=123#ci~Tfb")
maps = st.integers(1, 9).flatmap(
    lambda w: st.lists(st.text(CODES, min_size=w, max_size=w), min_size=1, max_size=9))
points = st.tuples(st.integers(-2, 11), st.integers(-2, 11))


@settings(max_examples=500, deadline=None)
@given(rows=maps, start=points, kind=st.sampled_from("ci"), avoid=st.sets(points, max_size=12))
def test_the_array_labelling_answers_as_the_flood_fill(rows, start, kind, avoid):
    tiles = notes_of(rows).tiles
    assert _seam_reachable(tiles, start, kind, avoid) == _seam_reachable_walk(
        tiles, start, kind, avoid)


def noted(rows: list[str], at: tuple[int, int] = (0, 0)) -> MapNotes:
    """Remembered tiles as a character notes them: a view of the picture at `at`."""
    notes = MapNotes()
    notes.update({"view": {"x0": at[0], "y0": at[1], "tiles": rows}})
    return notes


@settings(max_examples=300, deadline=None)
@given(rows=maps, at=st.tuples(st.integers(0, 3), st.integers(0, 3)), start=points,
       kind=st.sampled_from("ci"), avoid=st.sets(points, max_size=12))
def test_the_notes_grid_answers_as_the_flood_fill(rows, at, start, kind, avoid):
    """The labelling of the grid the notes keep (no array built from the dict) answers the same."""
    notes = noted(rows, at)
    grid = notes.grid()
    assert grid is not None
    assert _seam_reachable(notes.tiles, start, kind, avoid, grid) == _seam_reachable_walk(
        notes.tiles, start, kind, avoid)


def test_tiles_written_by_hand_are_not_in_the_notes_grid():
    notes = noted(["..."])
    assert notes.grid() is not None and bytes(notes.grid()[0, :3]) == b"..."
    notes.tiles[(3, 0)] = "c"  # a map written by hand, as the tests above write theirs
    assert notes.grid() is None and notes_of(["..c"]).grid() is None
    assert dig_route(notes, (0, 0), "c", set()) == [(1, 0), (2, 0), (3, 0)]  # read from tiles
