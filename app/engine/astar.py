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

    def search(self, start: tuple[int, int], goal: tuple[int, int]) -> list[list[int]]:
        """The path from `start` to `goal` over `self.cost` (both ends included; [] when the
        goal is not reached). `self.distance` then holds what the search resolved."""
        if self._used:
            self._reset()
        self._used = True
        self.finder.add_root(start)
        return self.finder.path_to(goal).tolist()

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
