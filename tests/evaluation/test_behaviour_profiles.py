"""Behaviour profiles (asiworld.evaluation.profile, asiworld.evaluation.phases): how each
configuration spends its time, what its clears cost, what preceded its knockdowns and what the
world refused it, in results.json, the long-format rows, tables/profiles.csv, Figure 7 and the
report; the replay viewer's timeline paints the same phases.

Small seeded real worlds (a few simulation minutes), a scripted starving character, the shipped
sample replay and the synthetic cohort stream."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import asiworld
import pytest
from asiworld.agents.bots.base import Agent
from asiworld.agents.bots.driver import AgentDriver, BuiltinAgents
from asiworld.engine import World, codes
from asiworld.evaluation import evaluate, longform
from asiworld.evaluation.palette import phase_colours
from asiworld.evaluation.phases import PHASES
from asiworld.headless.run import Run, RunConfig, write_outputs
from asiworld.pipeline import Pipeline
from asiworld.programs.manager import ProgramManager
from asiworld.replay.phases import timeline
from asiworld.replay.reader import Replay
from eval_streams import COHORT, cohort_stream

ROOT = Path(asiworld.__file__).resolve().parent.parent
SAMPLE = ROOT / "replays" / "three-configurations-30min.asirep"
AGENTS = ["planner", "forager", "random"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("profiles")
    run = Run(RunConfig(seed=5, minutes=3, agents=AGENTS, out=out, record=False))
    write_outputs(out, run, run.run())
    return out


def measure(rows, name, configuration):
    return next(r["value"] for r in rows
                if r["measure"] == name and r["configuration"] == configuration)


def playing(world: World, drivers, ticks: int) -> list[dict]:
    """`ticks` steps of `world` with `drivers` deciding; every event of them."""
    pipeline = Pipeline(world, programs=ProgramManager(world, in_process=True))
    for driver in drivers(pipeline):
        pipeline.add_driver(driver)
    events: list[dict] = []
    pipeline.watch(lambda tick: events.extend(tick.events))
    pipeline.run_until(world.tick + ticks)
    pipeline.close()
    return events


def test_phase_shares_sum_to_one_per_configuration(run_dir):
    results = json.loads((run_dir / "results.json").read_text())
    for row in results["configurations"]:
        profile = row["profile"]
        first, last = profile["window"]
        assert sum(profile["phase_ticks"].values()) == last - first + 1
        assert sum(profile["phases"].values()) == pytest.approx(1.0)
        shares = [measure(results["rows"], f"phase.{p}", row["name"]) for p in PHASES]
        assert sum(shares) == pytest.approx(1.0)
    with (run_dir / "tables" / "profiles.csv").open(newline="") as fh:
        table = list(csv.DictReader(fh))
    assert [r["Configuration"] for r in table] == [r["name"] for r in results["configurations"]]
    for r in table:
        assert sum(float(r[p]) for p in PHASES) == pytest.approx(1.0, abs=0.005)


def test_the_report_has_a_behaviour_table_and_figure_7(run_dir):
    report = (run_dir / "report.md").read_text()
    behaviour = report[report.index("## Behaviour"):report.index("## Table 2")]
    for name in AGENTS:
        assert f"| {name} |" in behaviour
    assert "![Figure 7](figures/F7_profiles.png)" in behaviour
    for fmt in ("png", "svg", "pdf"):
        assert (run_dir / "figures" / f"F7_profiles.{fmt}").stat().st_size > 0


class StoneEater(Agent):
    """A python seat's agent that keeps asking to eat a stone it does not have."""

    def decide(self, obs):
        return {"type": "eat", "item": "stone"}


def test_a_builtins_and_a_python_seats_refused_actions_appear_by_code():
    world = World.create(seed=3, size=48)
    eater = world.add_character("eater")
    seats = {}

    def drivers(pipeline):
        builtins = BuiltinAgents(think_ticks=1)
        builtins.join(pipeline, "random", 0, "random")
        users = AgentDriver()
        users.add(eater, StoneEater(think_ticks=10))
        seats["random"], seats["eater"] = builtins.seats[0], users.seats[0]
        return [builtins, users]

    events = playing(world, drivers, 300)
    results = evaluate(events)
    profile = {r["name"]: r["profile"] for r in results["configurations"]}
    assert seats["random"].refusals > 0
    assert sum(profile["random"]["refusals"].values()) == seats["random"].refusals
    assert profile["eater"]["refusals"] == {"not_in_inventory": seats["eater"].refusals}
    rows = longform.rows([results])
    assert measure(rows, "refusals.not_in_inventory", "eater") == seats["eater"].refusals
    assert measure(rows, "refusals.other", "eater") == 0


def test_a_knockdowns_preceding_damage_where_and_when_are_reported():
    world = World.create(seed=3, size=48)
    ada = world.add_character("ada")
    body = world.entities[ada]
    body.hunger, body.health = 0, 3  # starving: hunger takes a point every ten seconds
    events = playing(world, lambda pipeline: [], 60)
    results = evaluate(events)
    (row,) = results["configurations"]
    (down,) = row["profile"]["knockdowns"]
    assert down["cause"] == "hunger" and down["where"] == "surface" and down["daytime"] == "day"
    assert down["last_damage"]["source"] == "hunger" and down["last_damage"]["health"] == 0
    assert down["damage_before"] == {"hunger": 3}
    rows = longform.rows([results])
    assert measure(rows, "downs.hunger", "ada") == 1 and measure(rows, "downs.night", "ada") == 0


def test_damage_and_supplies_per_clear_count_the_clears_only():
    results = evaluate(cohort_stream(), COHORT)
    planner = next(r for r in results["configurations"] if r["name"] == "planner")
    clears = planner["profile"]["clears"]
    # four clears (tiers 1-4: damage 10, 25, 40, 70; supplies 0, 1, 2, 3); a failed tier 3 not
    assert clears["all"] == {"clears": 4, "damage": 36.25, "supplies": 1.5}
    assert clears["3"] == {"clears": 1, "damage": 40.0, "supplies": 2.0}
    rows = longform.rows([results])
    assert measure(rows, "clear.damage", "planner") == 36.25
    assert measure(rows, "clear.4.supplies", "planner") == 3.0


def test_the_viewer_and_the_evaluation_agree_on_the_phases_of_a_sample_replay():
    with Replay.open(SAMPLE) as replay:
        events = list(replay.events())
        chars = [c["id"] for c in replay.characters()]
        line = timeline(events, replay.first_tick or 0, replay.last_tick or 0, chars)
    results = evaluate(events)
    assert {r["id"] for r in results["configurations"]} == set(chars)
    for row in results["configurations"]:
        first, last = row["profile"]["window"]
        seen = dict.fromkeys(PHASES, 0)
        for start, end, phase in line["phases"][row["id"]]:
            seen[phase] += max(0, min(end, last) - max(start, first) + 1)
        assert seen == row["profile"]["phase_ticks"]
        assert seen["idle"] < sum(seen.values())  # the replay has more than idle time


def test_figure_7_draws_the_phases_in_the_timelines_colours():
    js = (ROOT / "app" / "static" / "js" / "replay-timeline.js").read_text()
    block = js.split("export const PHASE_COLOURS = {", 1)[1].split("};", 1)[0]
    assert dict(re.findall(r'(\w+): "(#[0-9a-f]{6})"', block)) == phase_colours()
    assert tuple(phase_colours()) == PHASES


def test_each_refusal_code_of_the_world_is_a_measure():
    world_codes = [c for c, entry in codes.TABLE.items() if codes.ACTION in entry.where]
    assert "not_in_inventory" in world_codes and "no_runs" not in world_codes
    assert [m for m in longform.MEASURES if m.startswith("refusals.")] == [
        *(f"refusals.{c}" for c in world_codes), "refusals.other"]


def test_a_hosted_programs_refused_call_is_a_refusal_of_its_character():
    world = World.create(seed=3, size=48)
    ada = world.add_character("ada")
    source = "try:\n    eat('stone')\nexcept GameError as e:\n    log(e.code)\n"

    def drivers(pipeline):
        assert pipeline.submit_program(ada, "eater", source)["ok"] is True
        return []

    events = playing(world, drivers, 10)
    (refused,) = [e for e in events if e["kind"] == "refused"]
    assert refused["char"] == ada and refused["code"] == "not_in_inventory"
    assert refused["type"] == "eat" and refused["program"] == 1
    (row,) = evaluate(events)["configurations"]
    assert row["profile"]["refusals"] == {"not_in_inventory": 1}
