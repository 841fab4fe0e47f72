"""tcod's A* over a window of a map, with each window shape's graph and pathfinder kept for
the next search.

A new tcod `SimpleGraph` and `Pathfinder` cost several times what a short search itself costs:
the graph compiles its edge rules on its first search, and the pathfinder builds its
traversal array with a meshgrid. A `Searcher` for one shape keeps its cost array (the graph
reads it by reference, so writing the window's costs into it is all a new search needs), the
compiled graph and the pathfinder, and resets the pathfinder between searches: distances to
unreached, the traversal array to its identity, the frontier emptied. That is the state a
new pathfinder starts in, so every search returns the path a fresh graph and pathfinder
would (tests/engine/test_windowed_paths.py checks it against one A* over the whole map).

The searchers are per thread: two worlds may be stepped on two threads at once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np
import tcod.path

UNREACHED = np.iinfo(np.int32).max
KEPT_SHAPES = 32  # searchers kept per thread, the least recently used dropped first


# What the direct search (Searcher.search) calls in tcod; without any of it, tcod's own path_to
_DIRECT = all(hasattr(tcod.path.lib, name) for name in (
    "TCOD_frontier_push", "update_frontier_heuristic", "path_compute", "get_travel_path")) \
    and hasattr(tcod.path, "_export") and hasattr(tcod.path.CustomGraph, "_compile_rules")


class Searcher:
    """A* (cardinal steps of cost 1, Manhattan heuristic) over one window shape ([x, y])."""

    def __init__(self, shape: tuple[int, int]) -> None:
        self.cost = np.zeros(shape, dtype=np.int8)
        self.graph = tcod.path.SimpleGraph(cost=self.cost, cardinal=1, diagonal=0)
        self.graph.set_heuristic(cardinal=1, diagonal=0)
        self.finder = tcod.path.Pathfinder(self.graph)
        # The reset reads the pathfinder's own arrays (tcod has no public reset that keeps
        # them); a tcod without them gets a new pathfinder per search instead.
        self._reusable = all(hasattr(self.finder, name)
                             for name in ("_distance", "_travel", "_frontier_p"))
        self._identity = self.finder._travel.copy() if self._reusable else None
        self._used = False
        # The C calls `path_to` makes, made directly: tcod's Python round them (exporting
        # both arrays, compiling the heuristic, two get_travel_path calls through checks)
        # cost several times a short search in a crowd. The arrays are reset in place, so
        # one export of each serves every search.
        self._direct = self._reusable and _DIRECT
        if self._direct:
            self._rules, self._keep = self.graph._subgraph._compile_rules()
            self._distance_p = tcod.path._export(self.finder._distance)
            self._travel_p = tcod.path._export(self.finder._travel)
            self._heuristic = self.graph._heuristic

    def search(self, start: tuple[int, int], goal: tuple[int, int]) -> list[list[int]]:
        """The path from `start` to `goal` over `self.cost`, both ends included: the goal
        alone when it is not reached. `self.distance` then holds what the search resolved
        (everything the start reaches, when it missed)."""
        if self._used:
            self._reset()
        self._used = True
        if not (self._direct and self._reusable) or start == goal:
            self.finder.add_root(start)
            return self.finder.path_to(goal).tolist()
        # add_root(start), then path_to(goal): the same calls in the same order
        finder, lib = self.finder, tcod.path.lib
        finder._distance[start] = 0
        finder._travel[start] = start
        lib.TCOD_frontier_push(finder._frontier_p, start, 0, 0)
        heuristic = tcod.path.ffi.new("struct PathfinderHeuristic*", (*self._heuristic, goal))
        lib.update_frontier_heuristic(finder._frontier_p, heuristic)
        if lib.path_compute(finder._frontier_p, self._distance_p, self._travel_p,
                            len(self._rules), self._rules, heuristic) < 0:
            raise RuntimeError("tcod's path_compute failed")
        length = lib.get_travel_path(2, self._travel_p, goal, tcod.path.ffi.NULL)
        if length < 0:
            raise RuntimeError("tcod's get_travel_path failed")
        path = np.empty((length, 2), dtype=np.intc)
        lib.get_travel_path(2, self._travel_p, goal, tcod.path.ffi.from_buffer("int*", path))
        return path[::-1].tolist()

    @property
    def distance(self) -> np.ndarray:
        return self.finder.distance

    def _reset(self) -> None:
        finder = self.finder
        if not self._reusable:
            self.finder = tcod.path.Pathfinder(self.graph)
            return
        finder._distance[...] = UNREACHED
        np.copyto(finder._travel, self._identity)
        tcod.path.lib.TCOD_frontier_clear(finder._frontier_p)


_local = threading.local()


def searcher(shape: tuple[int, int]) -> Searcher:
    """This thread's searcher for `shape`."""
    kept = getattr(_local, "searchers", None)
    if kept is None:
        kept = _local.searchers = OrderedDict()
    found = kept.get(shape)
    if found is None:
        found = kept[shape] = Searcher(shape)
        if len(kept) > KEPT_SHAPES:
            kept.popitem(last=False)
    else:
        kept.move_to_end(shape)
    return found
