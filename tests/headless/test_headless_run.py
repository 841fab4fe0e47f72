"""`asiworld run` advances a world headless with built-in characters and writes results.json;
`asiworld bench engine` prints its figures. Bad arguments exit 2 with a code and a sentence."""

from __future__ import annotations

import json

import asiworld
from asiworld import provenance
from asiworld.cli import main


def test_a_headless_run_writes_results_with_the_runs_facts_and_each_characters_measures(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["run", "--seed", "3", "--minutes", "3", "--agents", "forager,forager,random",
                 "--size", "64", "--out", str(out), "--json", "--figures", "none"])
    assert code == 0
    results = json.loads((out / "results.json").read_text())
    for key in ("seed", "minutes", "ticks", "wall_seconds", "state_hash"):
        assert key in results
    assert results["ticks"] == 180 and results["seed"] == 3
    names = [c["name"] for c in results["configurations"]]
    assert sorted(names) == ["forager", "forager-2", "random"]
    for c in results["configurations"]:
        for key in ("kills", "crafts", "downs", "days"):
            assert key in c["measures"]
    assert (out / "events.jsonl").stat().st_size > 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["state_hash"] == results["state_hash"]
    # which code wrote it: the version, and the commit since the tests run from a checkout
    assert results["asiworld_version"] == asiworld.__version__
    assert results["git_commit"] == provenance.git_commit() and len(results["git_commit"]) == 40


def test_two_runs_with_one_seed_end_in_the_same_state(tmp_path, capsys):
    hashes = []
    for _ in range(2):
        assert main(["run", "--seed", "9", "--minutes", "2", "--agents", "forager,random",
                     "--size", "64", "--json"]) == 0
        hashes.append(json.loads(capsys.readouterr().out)["state_hash"])
    assert hashes[0] == hashes[1]


def test_an_unknown_configuration_is_refused(capsys):
    assert main(["run", "--minutes", "1", "--agents", "forager,wizard"]) == 2
    assert "unknown_configuration" in capsys.readouterr().err


def test_bad_numbers_are_refused(capsys):
    assert main(["run", "--minutes", "0"]) == 2
    assert main(["run", "--minutes", "1", "--size", "10"]) == 2
    assert main(["run", "--minutes", "1", "--agents", ","]) == 2
    assert "bad_argument" in capsys.readouterr().err
    for repeat in ("0", "-2", "x"):  # the bench's rounds
        assert main(["bench", "engine", "--repeat", repeat]) == 2
        assert "bad_argument: --repeat" in capsys.readouterr().err


def test_the_engine_bench_prints_ticks_per_second(capsys):
    from asiworld.headless.bench import bench_engine, bench_observation

    row = bench_engine(2, 30)
    assert row["ticks_per_second"] > 0 and row["cpu_ms_per_tick"] > 0  # it keeps the CPU clock
    assert bench_observation(samples=20)["observation_median_ms"] > 0


def test_the_engine_bench_says_each_count_as_soon_as_it_is_measured(capsys, monkeypatch):
    """Issue 19: `asiworld bench engine` ran 2+ minutes saying nothing. Each crowd's line is out
    before the next crowd starts."""
    from asiworld.headless import bench

    measure = bench.bench_engine
    said_before: list[str] = []

    def measured(characters: int, ticks: int, **where) -> dict:
        said_before.append(capsys.readouterr().out)
        return measure(characters, ticks, **where)

    monkeypatch.setattr(bench, "bench_engine", measured)
    monkeypatch.setattr(bench, "bench_observation", lambda: {
        "observation_median_ms": 0.1, "observation_p95_ms": 0.2, "text_observation_ms": 0.3})
    bench.main(ticks=3, counts=(1, 2))
    assert "1 characters: running 3 ticks" in said_before[0]
    assert "ticks/s" in said_before[1] and "2 characters: running" in said_before[1]
    assert "observation: median 0.1 ms" in capsys.readouterr().out


def test_the_engine_bench_repeated_prints_each_counts_median_and_its_ratio_to_the_first(
        capsys, monkeypatch):
    """`--repeat N`: the counts are taken in turn N times (the machine's speed drifts between
    a crowd's run and the few's), then each count's median per character-tick and its ratio to
    the first count's median: the figure issue 35's crowd target is read from."""
    from asiworld.headless import bench

    measured = iter([10.0, 30.0, 14.0, 33.0, 12.0, 99.0])  # 1 and 2 characters, in turn
    rounds: list[int] = []

    def fake(characters: int, ticks: int, **where) -> dict:
        rounds.append(characters)
        return {"characters": characters, "ticks": ticks, "ticks_per_second": 1.0,
                "ms_per_tick": 1.0, "us_per_character_tick": next(measured),
                "cpu_ms_per_tick": 1.0, "cpu_ticks_per_second": 1.0}

    monkeypatch.setattr(bench, "bench_engine", fake)
    monkeypatch.setattr(bench, "bench_observation", lambda: {
        "observation_median_ms": 0.1, "observation_p95_ms": 0.2, "text_observation_ms": 0.3})
    bench.main(ticks=3, counts=(1, 2), repeat=3)
    assert rounds == [1, 2, 1, 2, 1, 2]
    out = capsys.readouterr().out
    assert "round 3 of 3:" in out and "medians of 3 rounds" in out
    assert "    1 characters:    12.0  (runs 10.0-14.0)\n" in out
    assert "    2 characters:    33.0  (runs 30.0-99.0)  2.75x that at 1" in out


def test_an_engine_bench_round_starts_without_the_world_of_the_round_before(monkeypatch):
    """The world of a finished round lives on in reference cycles until a full collection; left
    there, every later round's collections walked it too, and rounds of 1,000 measured slower
    one after another (27.8 -> 32.3 us per character-tick)."""
    import weakref

    from asiworld.headless import bench
    from asiworld.pipeline import Pipeline

    worlds: list[weakref.ref] = []
    alive_while_timed: list[int] = []
    step = Pipeline.step

    def watched(self, *args, **kwargs):
        if not worlds or worlds[-1]() is not self.world:
            worlds.append(weakref.ref(self.world))
        elif self.world.tick > 1:  # a timed tick
            alive_while_timed.append(sum(ref() is not None for ref in worlds[:-1]))
        return step(self, *args, **kwargs)

    monkeypatch.setattr(Pipeline, "step", watched)
    for _ in range(3):
        bench.bench_engine(3, 3)
    assert len(worlds) == 3 and alive_while_timed and not any(alive_while_timed)


def test_the_crowd_bench_spreads_its_characters_over_the_whole_map(monkeypatch):
    """`bench engine --spread`: the crowd case of issue 22 walks from all over the map, not
    from one packed plaza."""
    from asiworld.engine.model import SURFACE
    from asiworld.headless import bench

    worlds = []
    real_spread = bench._spread
    monkeypatch.setattr(bench, "_spread", lambda world, seed: (real_spread(world, seed),
                                                                worlds.append(world)))
    row = bench.bench_engine(30, 2, size=96, spread=True)
    assert row["size"] == 96 and row["us_per_character_tick"] > 0
    world = worlds[0]
    plaza = world.landmarks.plaza
    far = [c for c in world.characters()
           if max(abs(c.x - plaza[0]), abs(c.y - plaza[1])) > 20]
    assert len(far) > 15  # packed, all 30 would stand within 3 rings of the plaza
    assert all(c.area == SURFACE for c in world.characters())


def test_a_run_with_out_prints_a_short_table_and_where_the_files_are(tmp_path, capsys):
    """Issue 19: it printed about 13 KB of JSON to the terminal."""
    out = tmp_path / "run"
    assert main(["run", "--seed", "3", "--minutes", "2", "--agents", "forager,random",
                 "--size", "64", "--out", str(out), "--figures", "none"]) == 0
    printed = capsys.readouterr().out
    results = json.loads((out / "results.json").read_text())
    assert results["state_hash"] in printed and f"files in {out}/" in printed
    listed = next(line for line in printed.splitlines() if line.startswith("files in"))
    assert "results.json" in listed and "figures" not in listed  # --figures none drew none
    lines = printed.strip().splitlines()
    assert lines[1].split()[:3] == ["configuration", "score", "outfit"]
    assert sorted(line.split()[0] for line in lines[2:4]) == ["forager", "random"]
    assert len(printed) < 1000


def test_a_headless_run_builds_frames_only_for_its_replay_and_observes_only_when_deciding(
        tmp_path, monkeypatch):
    # Nobody watches a headless run: the recorder's frame is the only one built each tick, and
    # none when no replay is written; a built-in agent is observed on the ticks it decides
    # (every think_ticks), never in between.
    from asiworld.engine.frames import FrameBuilder
    from asiworld.engine.world import World
    from asiworld.headless.run import Run, RunConfig

    frames, observations = [], []
    frame, observe = FrameBuilder.frame, World.observe
    monkeypatch.setattr(FrameBuilder, "frame", lambda self, events: frames.append(self) or
                        frame(self, events))
    monkeypatch.setattr(World, "observe", lambda self, char, **kw: observations.append(char) or
                        observe(self, char, **kw))
    for record in (True, False):
        frames.clear()
        observations.clear()
        run = Run(RunConfig(seed=3, minutes=1, agents=["forager", "random"], think_ticks=3,
                            out=tmp_path / str(record), record=record))
        run.run()
        ticks = run.world.tick
        assert len(frames) == (ticks if record else 0)
        assert len(set(map(id, frames))) == (1 if record else 0)  # the recorder's own builder
        assert run.pipeline.frames is None
        decisions = sum(seat.decisions for seat in run.agents.seats)
        assert len(observations) == decisions
        assert 2 * ticks // 3 - 2 <= decisions <= 2 * ticks // 3 + 2
