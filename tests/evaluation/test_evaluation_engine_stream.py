"""The evaluation reads a real engine's event stream (not only hand-built ones).

Two characters wander for two in-game days; every event the world emits goes through
`evaluate`, the reports are written, and the counts agree with the raw events.
"""

from __future__ import annotations

import json

from asiworld import engine
from asiworld.evaluation import evaluate, write_reports

TICKS = 2 * 1800 + 10


def run_world():
    world = engine.World.create(seed=7, content=engine.load_content())
    people = [
        {"id": world.add_character(name="ada", label="planner"), "name": "ada", "label": "planner"},
        {"id": world.add_character(name="bob", label="random"), "name": "bob", "label": "random"},
    ]
    events = []
    for t in range(TICKS):
        if t % 30 == 0:
            for i, p in enumerate(people):
                world.submit(p["id"], {"type": "move", "dir": "nesw"[(t // 30 + i) % 4]})
        events += world.step()
    return people, events


def test_a_real_stream_is_assessed_and_reported(tmp_path):
    people, events = run_world()
    results = evaluate(events, people, {"seed": 7, "ticks": TICKS})
    rows = {r["name"]: r for r in results["configurations"]}
    assert set(rows) == {"ada", "bob"}
    for p in people:
        mine = [e for e in events if e.get("char") == p["id"]]
        m = rows[p["name"]]["measures"]
        assert sum(e["kind"] == "day_report" for e in mine) == 2
        assert m["downs"] == sum(e["kind"] == "down" for e in mine)
        # Days survived: in the world from tick 0, less the time between each down and recovery.
        downs = [e["tick"] for e in mine if e["kind"] == "down"]
        ups = [e["tick"] for e in mine if e["kind"] == "recovered"] + [results["tick"]]
        down_time = sum(up - down for down, up in zip(downs, ups, strict=False))
        assert m["days"] == (results["tick"] - down_time) / 1800 < 2
        assert sum(rows[p["name"]]["actions"].values()) == sum(e["kind"] == "action" for e in mine)
        assert m["damage_taken"] == sum(
            e["amount"] for e in mine if e["kind"] == "damaged" and "entity" not in e
        )
    paths = write_reports(tmp_path, results)
    json.loads(paths["json"].read_text())  # the evidence events are JSON-ready
    assert "| ada |" in paths["markdown"].read_text()
