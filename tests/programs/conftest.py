"""Fixtures of the program tests: ada in a seed-7 world and an in-process program manager on it
(the process host has its own tests: test_programs_isolation, test_programs_lifecycle's crash)."""

from __future__ import annotations

import pytest
from asiworld.engine import World
from asiworld.programs.manager import ProgramManager


@pytest.fixture
def world():
    return World.create(seed=7)


@pytest.fixture
def char(world):
    return world.add_character(name="ada")


@pytest.fixture
def manager(world):
    m = ProgramManager(world, in_process=True)
    yield m
    m.close()
