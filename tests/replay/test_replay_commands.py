"""`asiworld replay info | verify | export` and the re-simulation behind verify."""

from __future__ import annotations

import json

import pytest
from asiworld.cli import main
from asiworld.replay import Recorder, Replay, ReplayHeader
from asiworld.replay.render import render_state, scale_for
from asiworld.replay.verify import verify_replay
from engine_runs import SIZE, record_engine_run
from PIL import Image

OPPOSITE = {"n": "s", "s": "n", "e": "w", "w": "e"}


class TamperingRecorder(Recorder):
    """Writes the log of a different run than the one it hashes: one move turned around. It
    picks a move that was made in the last tick before a hash, so the next hash must differ (in
    a real world a walk turned around can meet its old path again behind a wall)."""

    def __init__(self, *args, from_tick: int, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.from_tick = from_tick
        self.done = False

    def record(self, frame, inputs=(), events=None, hash=None):  # noqa: A002
        rows = [list(r) for r in inputs]
        moved = {e["char"] for e in events or () if e["kind"] == "op_done" and e["type"] == "move"}
        for row in rows:
            tick, char, action = row
            if (
                not self.done
                and tick >= self.from_tick
                and (tick + 1) % self.hash_every == 0
                and action.get("type") == "move"
                and char in moved
            ):
                row[2] = {**action, "dir": OPPOSITE[action["dir"]]}
                self.done = True
                self.tampered_tick = tick
        super().record(frame, rows, events, hash)


def make_header() -> ReplayHeader:
    return ReplayHeader(seed=5, width=SIZE, height=SIZE, configurations=[{"name": "walker"}])


@pytest.fixture(scope="module")
def run_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cmd") / "run.asirep"
    with Recorder(path, make_header(), keyframe_every=120, frames_per_chunk=30, hash_every=10) as r:
        record_engine_run(r, seed=5, ticks=300)
    return path


def test_verify_passes_on_an_untouched_recording(run_file):
    with Replay.open(run_file) as replay:
        verdict = verify_replay(replay)
    assert verdict.ok, verdict.message
    assert verdict.checked == 30 and verdict.last_tick == 300


def test_verify_fails_at_the_first_hash_after_a_tampered_input(tmp_path):
    path = tmp_path / "tampered.asirep"
    rec = TamperingRecorder(path, make_header(), frames_per_chunk=30, hash_every=10, from_tick=150)
    record_engine_run(rec, seed=5, ticks=300)
    rec.close()
    with Replay.open(path) as replay:
        verdict = verify_replay(replay)
    assert not verdict.ok and verdict.code == "hash_mismatch"
    # The input logged at tick T acts in the step to T+1: the next multiple of 10 after it.
    assert verdict.mismatch_tick == (rec.tampered_tick // 10 + 1) * 10
    assert str(verdict.mismatch_tick) in verdict.message


def test_verify_command_exits_0_when_hashes_match_and_1_on_the_first_mismatch(
    run_file, tmp_path, capsys
):
    assert main(["replay", "verify", str(run_file)]) == 0
    assert "30 state hashes match" in capsys.readouterr().out
    path = tmp_path / "tampered.asirep"
    rec = TamperingRecorder(path, make_header(), frames_per_chunk=30, hash_every=10, from_tick=40)
    record_engine_run(rec, seed=5, ticks=120)
    rec.close()
    assert main(["replay", "verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"first mismatching tick: {(rec.tampered_tick // 10 + 1) * 10}" in out


def test_verify_refuses_a_replay_without_hashes(tmp_path):
    path = tmp_path / "nohash.asirep"
    with Recorder(path, make_header(), hash_every=10**6) as r:
        record_engine_run(r, ticks=20)
    with Replay.open(path) as replay:
        verdict = verify_replay(replay)
    assert not verdict.ok and verdict.code == "no_hashes"


def test_info_reports_header_duration_counts_and_size(run_file, capsys):
    assert main(["replay", "info", str(run_file), "--json", "--check"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["seed"] == 5 and data["world"] == f"{SIZE}x{SIZE}"
    assert data["first_tick"] == 0 and data["last_tick"] == 300 and data["minutes"] == 5.0
    assert data["counts"]["frames"] == 301 and data["counts"]["hashes"] == 30
    assert data["size_bytes"] == run_file.stat().st_size
    assert data["complete"] is True and data["problems"] == []
    assert main(["replay", "info", str(run_file)]) == 0
    assert "5.0 simulation minutes" in capsys.readouterr().out


def test_info_on_a_cut_off_file_counts_what_is_there_and_says_it_was_cut(
    run_file, tmp_path, capsys
):
    cut = tmp_path / "cut.asirep"
    cut.write_bytes(run_file.read_bytes()[: run_file.stat().st_size // 2])
    assert main(["replay", "info", str(cut)]) == 0
    out = capsys.readouterr().out
    assert "cut off" in out


def test_info_on_a_missing_or_foreign_file_exits_2_with_the_code(tmp_path, capsys):
    assert main(["replay", "info", str(tmp_path / "nope.asirep")]) == 2
    assert "not_found" in capsys.readouterr().err
    junk = tmp_path / "junk.asirep"
    junk.write_bytes(b"\x00" * 100)
    assert main(["replay", "info", str(junk)]) == 2
    assert "not_a_replay" in capsys.readouterr().err


def test_export_png_draws_the_map_at_a_tick(run_file, tmp_path):
    out = tmp_path / "at.png"
    assert main(["replay", "export", str(run_file), "--at", "150", "--png", str(out)]) == 0
    image = Image.open(out)
    assert image.format == "PNG"
    scale = scale_for(SIZE, SIZE)
    assert image.size == (SIZE * scale, SIZE * scale + 14)


def test_export_gif_writes_one_frame_per_step(run_file, tmp_path):
    out = tmp_path / "clip.gif"
    args = ["replay", "export", str(run_file), "--gif", str(out), "--from", "100", "--to", "160"]
    assert main([*args, "--every", "10", "--fps", "5"]) == 0
    image = Image.open(out)
    assert image.format == "GIF" and image.n_frames == 7


def test_export_refuses_bad_ranges_and_missing_arguments(run_file, tmp_path, capsys):
    png = str(tmp_path / "x.png")
    assert main(["replay", "export", str(run_file), "--png", png]) == 2
    assert main(["replay", "export", str(run_file), "--at", "9999", "--png", png]) == 2
    assert "tick_out_of_range" in capsys.readouterr().err
    assert main(["replay", "export", str(run_file), "--at", "5", "--png", png, "--area", "7"]) == 2
    assert "unknown_area" in capsys.readouterr().err
    gif = str(tmp_path / "x.gif")
    assert (
        main(["replay", "export", str(run_file), "--gif", gif, "--from", "50", "--to", "10"]) == 2
    )
    assert main(["replay", "export", str(run_file)]) == 2


def test_rendering_marks_characters_in_their_own_colour(run_file):
    with Replay.open(run_file) as replay:
        state = replay.state_at(0)
    image = render_state(state, scale=8)
    char = next(e for e in state["entities"].values() if e["kind"] == "character")
    x, y = char["x"] * 8 + 4, char["y"] * 8 + 4 + 14
    from asiworld.replay.render import character_colour

    assert image.getpixel((x, y)) == character_colour(char["id"])


def test_export_with_focus_rings_that_character_and_refuses_unknown_ones(
    run_file, tmp_path, capsys
):
    with Replay.open(run_file) as replay:
        cid = next(
            int(i) for i, e in replay.state_at(10)["entities"].items() if e["kind"] == "character"
        )
    out = tmp_path / "focus.png"
    assert (
        main(
            [
                "replay",
                "export",
                str(run_file),
                "--at",
                "10",
                "--png",
                str(out),
                "--focus",
                str(cid),
            ]
        )
        == 0
    )
    assert Image.open(out).format == "PNG"
    assert (
        main(["replay", "export", str(run_file), "--at", "10", "--png", str(out), "--focus", "999"])
        == 2
    )
    assert "unknown_character" in capsys.readouterr().err


def test_verify_notes_when_the_replay_came_from_other_content(tmp_path, capsys):
    path = tmp_path / "other.asirep"
    header = make_header()
    header.content_hash = "0000000000000000"
    with Recorder(path, header, hash_every=10) as rec:
        record_engine_run(rec, seed=5, ticks=30)
    assert main(["replay", "verify", str(path)]) == 0
    assert "note: the replay was recorded with content 0000000000000000" in capsys.readouterr().out



def test_info_lists_each_configurations_characters_even_when_the_header_has_none(capsys):
    """Issue 19: the headless recorder writes every configuration with `characters []`."""
    from pathlib import Path

    sample = Path(__file__).resolve().parents[2] / "replays" / "three-configurations-30min.asirep"
    assert main(["replay", "info", str(sample), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    by_label = {c["label"]: c["id"] for c in data["characters"]}
    assert data["configurations"] and all(c["characters"] for c in data["configurations"])
    for conf in data["configurations"]:
        assert conf["characters"] == [by_label[conf["name"]]]
