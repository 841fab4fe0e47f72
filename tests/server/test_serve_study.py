"""`asiworld serve --study FILE --out DIR`: the same study on the live server. With the stand-in
model on the lockstep clock it writes the folder `asiworld study run` writes, with the same state
hash; /evaluation counts down to the horizon while it runs; /replays lists DIR/replay.asirep as it
is written; the world stops at the horizon; nobody joins its world. Bad inputs tried: a study with two seeds, a missing
study file, an --out folder holding an earlier study, --out or --figures without --study,
and --figures not one of its choices."""

from __future__ import annotations

import json
import time

import pytest
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer
from asiworld.cli import main
from asiworld.evaluation.report import FIGURES
from asiworld.replay import Replay
from asiworld.replay.verify import verify_replay
from asiworld.study.demo import MODEL_SEATS, demo_text

from tests.hardening.serving import free_port, http, start_server, stop_server
from tests.study.helpers import SAME_WORLD_TIMEOUT

MINUTES = 5


def _study_file(tmp_path, url: str, name: str = "s.toml", **changes: str) -> str:
    text = demo_text(url, minutes=MINUTES, request_timeout=SAME_WORLD_TIMEOUT)
    for old, new in changes.items():
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.timeout(240)
def test_a_lockstep_study_on_the_server_writes_what_study_run_writes(tmp_path):
    with FakeModelServer(FakeModel()) as fake:
        study = _study_file(tmp_path, fake.url)
        # read for its results only: its figures are not drawn
        assert main(["study", "run", study, "--out", str(tmp_path / "headless"),
                     "--figures", "none"]) == 0
    headless = json.loads((tmp_path / "headless" / "results.json").read_text())

    out = tmp_path / "live"
    port = free_port()
    with FakeModelServer(FakeModel()) as fake:
        study = _study_file(tmp_path, fake.url, name="live.toml")
        proc = start_server(
            port, "--ephemeral", "--study", study, "--out", str(out), "--speed", "150",
            "--admin-token", "t", "--figures", "png",
        )
        try:
            # The study's world holds its seats only: a stranger's join would change its hash.
            status, body = http("POST", port, "/api/agents/join", {"name": "intruder"})
            assert status == 403 and body["error"]["code"] == "join_closed", body
            countdown, listed = [], False
            deadline = time.monotonic() + 200
            while time.monotonic() < deadline:
                status, body = http("GET", port, "/api/evaluation")
                assert status == 200, body
                state = body["meta"]["study"]
                countdown.append(state["ticks_left"])
                if not state["finished"]:
                    _, replays = http("GET", port, "/api/replays")
                    listed = listed or any(
                        r.get("recording") and r["id"] == "live" for r in replays["replays"])
                if state["finished"]:
                    break
                time.sleep(0.1)
            assert state["finished"], state
            assert state["problem"] is None
            assert state["ticks_left"] == 0 and state["tick"] == MINUTES * 60
            assert countdown[0] > 0 and sorted(countdown, reverse=True) == countdown
            assert listed, "the study's replay was not listed while it was written"
            # Past its horizon the scores link to the study's replay (asiworld.server.evidence).
            _, body = http("GET", port, "/api/evaluation")
            assert body["replay"] == {"id": "live", "url": "/replay/live", "settled": True}
            assert all("goal" in r["evidence"] for r in body["configurations"])
            time.sleep(0.5)
            assert http("GET", port, "/healthz")[1]["tick"] == MINUTES * 60  # it stopped
        finally:
            _out, err = stop_server(proc)
        assert proc.returncode == 0, err
        assert "Traceback" not in err

    live = json.loads((out / "results.json").read_text())
    assert live["state_hash"] == headless["state_hash"]
    assert live["ticks"] == headless["ticks"] == MINUTES * 60
    assert [r["name"] for r in live["configurations"]] == [
        r["name"] for r in headless["configurations"]]
    for name in ("report.md", "events.jsonl", "replay.asirep"):
        assert (out / name).is_file(), name
    # --figures png: the figures as PNG alone
    assert sorted(str(p.relative_to(out)) for p in (out / "figures").iterdir()) == sorted(
        FIGURES.values())
    assert sorted(p.stem for p in (out / "transcripts").glob("*.jsonl")) == sorted(MODEL_SEATS)
    with Replay.open(out / "replay.asirep") as replay:
        assert replay.complete
        assert verify_replay(replay).ok


def test_bad_study_inputs_start_nothing(tmp_path, capsys):
    url = "http://127.0.0.1:9/v1"
    two = _study_file(tmp_path, url, name="two.toml", **{"seed = 3": "seeds = [3, 4]"})
    assert main(["serve", "--ephemeral", "--study", two, "--out", str(tmp_path / "a")]) == 2
    assert "several_seeds" in capsys.readouterr().err
    assert not (tmp_path / "a" / "replay.asirep").exists()

    missing = str(tmp_path / "nope.toml")
    assert main(["serve", "--ephemeral", "--study", missing]) == 2
    assert "error: " in capsys.readouterr().err

    used = tmp_path / "used"
    used.mkdir()
    (used / "results.json").write_text("{}")
    one = _study_file(tmp_path, url)
    assert main(["serve", "--ephemeral", "--study", one, "--out", str(used)]) == 2
    assert "out_in_use" in capsys.readouterr().err

    assert main(["serve", "--ephemeral", "--out", str(tmp_path / "b")]) == 2
    assert "bad_argument" in capsys.readouterr().err

    assert main(["serve", "--ephemeral", "--figures", "png"]) == 2  # a study's: no study given
    assert "error: bad_argument: --figures names a study's figure files" in capsys.readouterr().err
    assert main(["serve", "--ephemeral", "--study", one, "--out", str(tmp_path / "c"),
                 "--figures", "gif"]) == 2
    assert "error: bad_argument: argument --figures: invalid choice: 'gif'" \
        in capsys.readouterr().err
    assert not (tmp_path / "c").exists()


def test_the_clock_never_steps_past_a_horizon(runner):
    from asiworld.realtime import RunnerStopped

    runner.horizon = 5
    assert runner.step(5) == 5
    with pytest.raises(RunnerStopped, match="horizon"):
        runner.step(1)
    assert runner.world.tick == 5 and runner.stats()["horizon"] == 5


def _wait_finished(port: int, timeout: float = 200) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, body = http("GET", port, "/api/evaluation")
        assert status == 200, body
        state = body["meta"]["study"]
        if state["finished"]:
            return state
        time.sleep(0.1)
    raise AssertionError(f"the study did not finish: {state}")


@pytest.mark.timeout(240)
def test_a_realtime_study_killed_on_the_server_is_resumed_by_serving_it_again(tmp_path, capsys):
    """SIGKILL the server mid-study; `serve --study` on the same --out resumes it (as `study
    run` does, study/resume.py) and finishes at the horizon. Bad input tried: the folder served
    with another study file (resume_mismatch, nothing changed)."""
    import os
    import signal

    from asiworld.server.persistence import WorldStore

    from tests.study.helpers import realtime_text, saved_tick

    out = tmp_path / "live"
    with FakeModelServer(FakeModel()) as fake:
        study = tmp_path / "rt.toml"
        study.write_text(realtime_text(fake.url, {"forager": ("fake-forager", 3, False),
                                                  "programmer": ("fake-programmer", 8, True)},
                                       minutes=4, speed=60.0))
        port = free_port()
        proc = start_server(port, "--ephemeral", "--study", str(study), "--out", str(out))
        try:
            deadline = time.monotonic() + 120
            while saved_tick(out / "world.sqlite3") < 90:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.01)
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.communicate(timeout=30)  # its pipes closed, not left to the garbage collector
        store = WorldStore(out)
        killed_at = store.last_tick()
        store.close()
        assert not (out / "results.json").exists()
        other = tmp_path / "other.toml"
        other.write_text(realtime_text(fake.url, {"forager": ("fake-forager", 3, False)},
                                       minutes=4, speed=60.0, seed=4))
        capsys.readouterr()
        assert main(["serve", "--ephemeral", "--study", str(other), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert "error: resume_mismatch: " in err and "give another --out" in err, err
        store = WorldStore(out)
        assert store.last_tick() == killed_at  # nothing was changed
        store.close()

        port = free_port()
        proc = start_server(port, "--ephemeral", "--study", str(study), "--out", str(out))
        try:
            state = _wait_finished(port)
            assert state["problem"] is None and state["tick"] == 4 * 60
        finally:
            said, err = stop_server(proc)
        assert proc.returncode == 0, err
        assert "Traceback" not in err
    assert "interrupted: resuming it" in said
    assert f"re-applying ticks 0..{killed_at}" in said
    assert "fontTools" not in err  # the PDF figures' font subsetting logs nothing at INFO
    results = json.loads((out / "results.json").read_text())
    assert results["meta"]["resumed"] == [killed_at]
    with Replay.open(out / "replay.asirep") as replay:
        verdict = verify_replay(replay)
    assert verdict.ok and verdict.last_tick == 4 * 60, verdict.message
