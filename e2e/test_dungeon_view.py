"""Dungeons in a real browser: following a character through a gate switches /live to its
instance (terrain, fog, boss with its bar), the area menu names the instance, the character
list shows coins and the area; /play buys at the merchant and follows its own character in.

Setup puts characters on gates and next to bosses directly on the world thread (runner.call),
as the engine's own dungeon tests do; what is checked is what the pages draw."""

from __future__ import annotations

import time

import pytest

from e2e.test_browser import CANVAS_STATS, wait_for_ticks

pytestmark = pytest.mark.e2e

SURFACE = 0


def place(runner, cid: int, pos: tuple[int, int], area: int = SURFACE) -> None:
    def move() -> None:
        world = runner.world
        world.move_entity(world.entities[cid], pos[0], pos[1], area)

    runner.call(move)


def gate(runner, tier: int) -> tuple[int, int]:
    return runner.call(lambda: tuple(runner.world.landmarks.gates[tier - 1]))


def equip(runner, cid: int, **slots: str) -> None:
    def give() -> None:
        char = runner.world.entities[cid]
        for slot, item in slots.items():
            char.equipment[slot] = item

    runner.call(give)


def area_of(runner, cid: int) -> int:
    return runner.call(lambda: runner.world.entities[cid].area)


def stand_next_to_boss(runner, cid: int) -> str:
    """Moves the character beside the boss of its instance; returns the boss's kind."""

    def move() -> str:
        world = runner.world
        char = world.entities[cid]
        area = world.areas[char.area]
        boss = world.entities[area.info["boss"]]
        for dx, dy in ((-1, 0), (1, 0), (0, 1), (0, -1), (-1, 1), (1, 1), (-1, -1), (1, -1)):
            x, y = boss.x + dx, boss.y + dy
            if world.walkable(area, x, y, char):
                world.move_entity(char, x, y, area.id)
                return boss.kind
        raise AssertionError("no free tile next to the boss")

    return runner.call(move)


def enter_dungeon(runner, cid: int, tier: int = 1) -> int:
    place(runner, cid, gate(runner, tier))
    result = runner.submit(cid, {"type": "enter"})
    assert result.ok, result
    for _ in range(100):
        area = area_of(runner, cid)
        if area != SURFACE:
            return area
        time.sleep(0.05)  # the world thread applies it at its next tick
    raise AssertionError("the character never entered")


def test_following_a_character_into_a_dungeon_shows_its_instance_and_the_boss(
    live_server, page, shot
):
    runner = live_server["runner"]
    cid = runner.add_character("delver", label="test")
    equip(runner, cid, weapon="iron_sword", armor="iron_armor")
    page.goto(live_server["url"] + f"/live?follow={cid}")
    wait_for_ticks(page)
    page.wait_for_function("window.__asiworld.fog !== null && window.__asiworld.area === '0'")
    page.wait_for_timeout(300)
    surface = page.evaluate(CANVAS_STATS)
    assert page.locator("#area-picker").input_value() == "0"

    instance = enter_dungeon(runner, cid, tier=1)
    page.wait_for_function(
        f"window.__asiworld.area === '{instance}' && window.__asiworld.fog"
        f" && window.__asiworld.fog.area === '{instance}'",
        timeout=10000,
    )
    page.wait_for_timeout(400)
    inside = page.evaluate(CANVAS_STATS)
    shot(page, "dungeon-follow-instance")
    assert inside["hash"] != surface["hash"]
    assert page.locator("#area-picker").input_value() == str(instance)
    picked = page.locator("#area-picker option:checked").inner_text()
    assert picked.startswith(f"Outer Court #{instance}") and "delver" in picked
    row = page.locator("#characters li", has_text="delver")
    assert "Outer Court" in row.locator(".badge.area").inner_text()

    boss = stand_next_to_boss(runner, cid)
    page.wait_for_selector("#boss-bar:not(.hidden)", timeout=10000)
    assert boss.replace("_", " ") in page.locator("#boss-name").inner_text().lower()
    hp = page.locator("#boss-hp").inner_text()
    assert "/" in hp
    runner.pause()  # hold the fight still for the screenshot
    try:
        page.wait_for_timeout(400)
        shot(page, "dungeon-boss-bar")
    finally:
        runner.resume()
