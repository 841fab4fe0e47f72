"""`asiworld study run --seeds 3..4 --ray ...`: each seed's world is a Ray task on a local
`ray.init(num_cpus=2)`, and the results are the ones two worlds played here give (state
hashes, scores, every measure; wall times aside), with the same files in DIR/E1, DIR/E2 (the
replays verify) and the comparison. Without ray installed, --ray is `error: ray_unavailable`
(exit 2, no traceback, nothing written)."""

from __future__ import annotations

import contextlib
import json
import sys

import pytest
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer
from asiworld.cli import main
from asiworld.evaluation.figure_options import FigureOptions
from asiworld.replay.reader import Replay
from asiworld.replay.verify import verify_replay
from asiworld.study.demo import demo_text
from asiworld.study.run import run_study
from asiworld.study.spec import parse_study

from tests.study.helpers import SAME_WORLD_TIMEOUT

NO_FIGURES = FigureOptions(formats=())  # the runs are checked here, not their figures

MINUTES = 2
WALL = ("wall_seconds", "engine_seconds", "latency_p50_ms", "latency_p95_ms", "latency_ms")


def without_wall_times(value):
    if isinstance(value, dict):
        return {k: without_wall_times(v) for k, v in value.items() if k not in WALL}
    if isinstance(value, list):
        return [without_wall_times(v) for v in value]
    return value


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    import ray

    root = tmp_path_factory.mktemp("ray")
    with FakeModelServer(FakeModel()) as server:
        text = demo_text(server.url, minutes=MINUTES, request_timeout=SAME_WORLD_TIMEOUT)
        path = root / "study.toml"
        path.write_text(text)
        local = root / "local"
        study = parse_study(text)
        world = study.world.model_copy(update={"seed": None, "seeds": [3, 4]})
        run_study(study.model_copy(update={"world": world}), text, local, where=str(path),
                  say=lambda line: None, figures=NO_FIGURES)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            on_ray = root / "on-ray"
            assert main(["study", "run", str(path), "--out", str(on_ray), "--figures", "none", "--seeds", "3..4",
                         "--ray", "auto"]) == 0
        finally:
            ray.shutdown()
    return local, on_ray


def results(folder):
    return json.loads((folder / "results.json").read_text())


@pytest.mark.parametrize("run", ["E1", "E2"])
def test_a_seed_on_ray_gives_what_it_gives_here(both, run):
    local, on_ray = both
    here, there = results(local / run), results(on_ray / run)
    assert there["state_hash"] == here["state_hash"]
    assert [c["score"] for c in there["configurations"]] == \
        [c["score"] for c in here["configurations"]]
    assert without_wall_times(there) == without_wall_times(here)


@pytest.mark.parametrize("run", ["E1", "E2"])
def test_a_ray_worlds_files_come_back(both, run):
    local, on_ray = both
    mine = sorted(p.relative_to(on_ray / run) for p in (on_ray / run).rglob("*") if p.is_file())
    assert mine == sorted(p.relative_to(local / run) for p in (local / run).rglob("*")
                          if p.is_file())
    assert (on_ray / run / "events.jsonl").read_text() == \
        (local / run / "events.jsonl").read_text()
    with contextlib.closing(Replay.open(on_ray / run / "replay.asirep")) as replay:
        verdict = verify_replay(replay)
    assert verdict.ok, verdict.message


def test_the_comparison_is_written_from_the_ray_results(both):
    local, on_ray = both
    there = json.loads((on_ray / "comparison.json").read_text())
    here = json.loads((local / "comparison.json").read_text())
    assert [r["seed"] for r in there["results"]] == [3, 4]
    assert without_wall_times(there) == without_wall_times(here)


def test_without_ray_installed_ray_is_a_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    path = tmp_path / "study.toml"
    path.write_text(demo_text("http://127.0.0.1:9/v1", minutes=1))
    out = tmp_path / "out"
    assert main(["study", "run", str(path), "--out", str(out), "--figures", "none", "--seeds", "1..2",
                 "--ray", "local"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ray_unavailable: --ray needs the ray package"), err
    assert "Traceback" not in err
    assert not out.exists()
