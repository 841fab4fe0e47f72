"""A character's field of view is tcod's symmetric shadowcasting with light walls. The engine
calls tcod's C on a map kept per window shape (vision.field_of_view) instead of tcod's
wrapper, which builds a map per call: every view must be the one the wrapper gives, view
after view, whatever the map kept from the last one."""

from __future__ import annotations

import random

import numpy as np
import tcod.constants
import tcod.map
from asiworld.engine import vision


def wrapper_view(see: np.ndarray, pov: tuple[int, int], r: int) -> np.ndarray:
    return tcod.map.compute_fov(see, pov, r, light_walls=True,
                                algorithm=tcod.constants.FOV_SYMMETRIC_SHADOWCAST)


def test_each_view_is_the_one_tcods_wrapper_gives_view_after_view(monkeypatch):
    rng = random.Random(3)
    for direct in (True, False):  # the kept maps, and tcod's wrapper when they are not there
        monkeypatch.setattr(vision, "_FOV_DIRECT", direct)
        for _ in range(400):
            r = rng.choice((3, 5, 7))
            # a window cut by the map's edge is smaller and its viewer off centre
            h, w = rng.randint(r + 1, 2 * r + 1), rng.randint(r + 1, 2 * r + 1)
            see = np.array([[rng.random() < rng.choice((0.5, 0.8, 1.0)) for _ in range(w)]
                            for _ in range(h)])
            pov = (rng.randrange(h), rng.randrange(w))
            view = vision.field_of_view(see, pov, r)
            assert view.shape == (h, w) and view.dtype == bool
            assert (view == wrapper_view(see, pov, r)).all()


def test_a_kept_map_does_not_leak_into_the_next_view():
    # an open window seen first, then the same shape walled: nothing of the first stays
    open_, walled = np.ones((15, 15), bool), np.ones((15, 15), bool)
    walled[:, 9] = False
    first = vision.field_of_view(open_, (7, 7), 7)
    second = vision.field_of_view(walled, (7, 7), 7)
    assert first[7, 12] and not second[7, 12]  # behind the wall now
    assert (first == wrapper_view(open_, (7, 7), 7)).all()
    assert (second == wrapper_view(walled, (7, 7), 7)).all()
