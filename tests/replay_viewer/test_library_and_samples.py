"""Finding replays (ids from file and run-folder names) and the samples command's arguments."""

from __future__ import annotations

from asiworld.cli import main
from asiworld.replay.library import find_replays


def test_replay_ids_come_from_file_names_and_run_folders_and_never_collide(tmp_path):
    (tmp_path / "alpha.asirep").write_bytes(b"")
    (tmp_path / "run one").mkdir()
    (tmp_path / "run one" / "replay.asirep").write_bytes(b"")
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "alpha.asirep").write_bytes(b"")
    (tmp_path / "notes.txt").write_text("not a replay")
    found = find_replays([tmp_path, tmp_path / "missing"])
    assert set(found) == {"alpha", "alpha-2", "run-one"}
    assert found["run-one"].parent.name == "run one"


def test_a_broken_file_is_listed_with_its_error_instead_of_breaking_the_list(tmp_path):
    from asiworld.replay.library import ReplayLibrary

    (tmp_path / "broken.asirep").write_bytes(b"NOT A REPLAY")
    (row,) = ReplayLibrary([tmp_path]).listing()
    assert row["id"] == "broken" and row["error"] == "not_a_replay"


def test_the_samples_command_lists_its_samples_and_refuses_unknown_ones(capsys):
    assert main(["replay", "samples", "--list"]) == 0
    assert "nine-characters-60min" in capsys.readouterr().out
    assert main(["replay", "samples", "--only", "nope"]) == 2
    assert "unknown_sample" in capsys.readouterr().err
    assert main(["replay", "samples", "--minutes", "0"]) == 2
