"""The shared house skills (app/agents/bots/skills.py) the planner and the builder use: where a house
goes, what of it stands, where to stand, and the order it is built in. Fakes only: a remembered
map and observations made by hand."""

from __future__ import annotations

from asiworld.agents.bots.skills import (
    House,
    MapNotes,
    build_house,
    find_house_site,
    house_site_ok,
    stand_spot,
)


def grass_notes(w: int = 40, h: int = 40, size: int = 128) -> MapNotes:
    notes = MapNotes()
    notes.size = size  # plaza at (64, 64): far from this patch
    for y in range(h):
        for x in range(w):
            notes.tiles[(x, y)] = "."
    return notes


def obs_at(x: int, y: int, tick: int = 0) -> dict:
    return {"tick": tick, "self": {"x": x, "y": y}, "events": []}


def test_the_house_has_nine_floor_tiles_fifteen_walls_and_a_door_in_the_south_side():
    house = House()
    house.site = (10, 10)
    floors, walls, door = house.layout()
    assert len(floors) == 9 and len(set(floors)) == 9
    assert len(walls) == 15 and door not in walls
    assert door == (12, 14)
    assert all(house.inside(p) for p in floors)
    assert not any(house.inside(p) for p in walls + [door])
    assert house.bed_tile() in floors
    assert set(floors) | set(walls) | {door} <= house.footprint()
    assert len(house.footprint()) == 49


def test_a_house_without_a_site_has_no_inside_and_no_footprint():
    house = House()
    assert not house.inside((0, 0))
    assert house.footprint() == set()


def test_the_house_learns_its_own_placements_its_lock_and_whether_it_is_locked():
    house = House()
    house.learn(
        [
            {"kind": "placed", "item": "floor", "x": 1, "y": 1, "area": 0},
            {"kind": "placed", "item": "wall", "x": 0, "y": 0, "area": 0},
            {"kind": "placed", "item": "workbench", "x": 9, "y": 9, "area": 0},  # not the house
            {"kind": "placed", "item": "wall", "x": 5, "y": 5, "area": 3},  # not the surface
            {"kind": "op_done", "type": "install_lock"},
            {"kind": "home", "area": 9, "locked": True},
        ]
    )
    assert house.built == {(1, 1): "floor", (0, 0): "wall"}
    assert house.walls() == {(0, 0)}
    assert house.lock_fitted and house.locked
    house.learn([{"kind": "home", "area": 0, "locked": False}])
    assert not house.locked


def test_a_site_needs_open_ground_free_of_anything_taken_and_a_way_out_of_the_door():
    notes = grass_notes()
    assert house_site_ok(notes, 5, 5, set())
    notes.tiles[(7, 7)] = "#"  # rock inside the patch
    assert not house_site_ok(notes, 5, 5, set())
    assert not house_site_ok(notes, 20, 20, {(21, 21)})  # someone's structure
    notes.tiles[(22, 25)] = "~"  # water outside the door
    assert not house_site_ok(notes, 20, 20, set())
    assert not house_site_ok(notes, 35, 35, set())  # runs off the known map


def test_no_site_on_or_next_to_the_plaza():
    notes = grass_notes(size=40)  # plaza at (20, 20)
    assert not house_site_ok(notes, 18, 18, set())
    assert house_site_ok(notes, 2, 2, set())


def test_the_nearest_site_around_the_first_centre_that_has_one_is_chosen():
    notes = grass_notes()
    site = find_house_site(notes, [(20, 20)], set())
    assert site is not None and max(abs(site[0] - 20), abs(site[1] - 20)) == 2
    # Nothing buildable anywhere near the first centre: the second centre is tried.
    water = MapNotes()
    water.size = 128
    water.tiles = {(x, y): "~" for x in range(30) for y in range(30)}
    water.tiles.update({(x, y): "." for x in range(40, 60) for y in range(40, 60)})
    assert find_house_site(water, [(10, 10)], set()) is None
    assert find_house_site(water, [(10, 10), (50, 50)], set()) is not None


def test_a_stand_spot_is_walkable_unblocked_nearest_and_inside_when_asked():
    notes = grass_notes()
    notes.tiles[(6, 5)] = "T"
    spot = stand_spot(notes, (9, 5), (5, 5), blocked={(6, 4)})
    assert spot == (6, 6)
    house = House()
    house.site = (3, 3)
    inside = stand_spot(notes, (9, 5), (4, 4), blocked=set(), within=house.inside)
    assert inside is not None and house.inside(inside)
    assert stand_spot(notes, (0, 0), (60, 60), blocked=set()) is None  # never seen


class Calls:
    """Records which of the caller's ways build_house asked for."""

    def __init__(self):
        self.log: list[tuple] = []

    def craft(self, station, recipe, needs, count):
        self.log.append(("craft", recipe, count))
        return {"type": "craft", "recipe": recipe, "count": count}

    def fetch(self, material):
        self.log.append(("fetch", material))
        return {"type": "gather", "what": material}

    def place_at(self, item, target):
        self.log.append(("place", item, target))
        return {"type": "place", "item": item, "x": target[0], "y": target[1]}

    def explore(self):
        self.log.append(("explore",))
        return {"type": "move_to", "x": 0, "y": 0}


def step(house, notes, items, calls, x=9, y=9, tick=0):
    return build_house(
        obs_at(x, y, tick),
        items,
        house,
        notes,
        find_site=lambda: find_house_site(notes, [(x, y)], set()),
        craft=calls.craft,
        fetch=calls.fetch,
        place_at=calls.place_at,
        explore=calls.explore,
        blocked=set(),
    )


def test_the_house_goes_up_floors_first_then_walls_then_the_door_then_the_lock():
    notes, house, calls = grass_notes(), House(), Calls()
    assert step(house, notes, {}, calls)["recipe"] == "floor"
    assert calls.log[-1] == ("craft", "floor", 9)
    floors, walls, door = house.layout()
    assert step(house, notes, {"floor": 9}, calls)["type"] == "place"
    for p in floors:
        house.built[p] = "floor"
    assert step(house, notes, {}, calls) == {"type": "gather", "what": "stone"}
    assert step(house, notes, {"stone": 7}, calls)["count"] == 3  # as many walls as stone allows
    assert step(house, notes, {"wall": 3}, calls)["item"] == "wall"
    for p in walls:
        house.built[p] = "wall"
    assert step(house, notes, {}, calls)["recipe"] == "door"
    assert step(house, notes, {"door": 1}, calls)["item"] == "door"
    house.built[door] = "door"
    far = step(house, notes, {}, calls, x=30, y=30)
    assert far["type"] == "move_to"  # walks next to the door first
    near_door = (door[0], door[1] + 1)
    assert step(house, notes, {}, calls, *near_door)["type"] == "install_lock"
    house.lock_fitted = True
    assert step(house, notes, {}, calls, *near_door)["type"] == "lock"
    house.locked = True
    assert step(house, notes, {}, calls, *near_door) is None


def test_without_any_site_it_explores_and_searches_again_only_after_a_minute():
    notes, house, calls = MapNotes(), House(), Calls()
    searches = []

    def find():
        searches.append(1)
        return None

    for tick in (0, 30, 59, 60):
        build_house(
            obs_at(5, 5, tick),
            {},
            house,
            notes,
            find_site=find,
            craft=calls.craft,
            fetch=calls.fetch,
            place_at=calls.place_at,
            explore=calls.explore,
            blocked=set(),
        )
    assert len(searches) == 2
    assert calls.log == [("explore",)] * 4


# --- deciding every tick (a live server's built-in agents have no think time) --------------
def test_an_operation_under_way_is_not_sent_again():
    from asiworld.agents.bots.skills import gather, unless_doing

    opening = {"self": {"action": {"type": "gather", "args": {"x": 25, "y": 18}}}}
    assert unless_doing(opening, gather((25, 18))) is None  # it would start the chest over
    assert unless_doing(opening, gather((26, 18))) == gather((26, 18))
    idle = {"self": {"action": None}}
    assert unless_doing(idle, gather((25, 18))) == gather((25, 18))


def test_a_planner_on_a_live_server_opens_chests_and_clears_the_outer_court(apps):
    # A live server's built-in agents decide every tick. The planner used to send `gather` on a
    # chest every tick, cancelling the 2-tick opening each time, and stood by the chest for good.
    from asiworld.server import services

    app = apps.create(
        {"SEED": 7, "AGENTS": ["planner"], "TESTING": True, "PROGRAMS_IN_PROCESS": True}
    )
    runner = services(app).runner
    events: list[dict] = []
    runner.pipeline.watch(lambda info: events.extend(info.events))
    runner.step(4400)
    left = [e for e in events if e["kind"] == "dungeon_left" and e["tier"] == 1]
    assert left and left[0]["cleared"] and left[0]["alive"]
    assert any(e["kind"] == "gathered" and e.get("source") == "chest" for e in events)


def test_a_planner_deciding_every_tick_still_places_its_bed_in_its_own_house():
    # Deciding every tick, earlier refusals put tiles inside its house on its avoid list, and it
    # found nowhere to stand to place the bed: it waited a tick at a time, for good.
    from asiworld.headless.run import Run, RunConfig

    run = Run(RunConfig(seed=7, minutes=60, agents=["planner"], think_ticks=0, record=False))
    beds: list[dict] = []
    while run.world.tick < 3000 and not beds:
        beds = [e for e in run.step() if e["kind"] == "placed" and e["item"] == "bed"]
    assert beds, "the bed was placed within the first 3,000 ticks"
    assert run.agents.seats[0].agent.me.house.inside((beds[0]["x"], beds[0]["y"]))
