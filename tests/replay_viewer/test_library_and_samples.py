"""Finding replays (ids from file and run-folder names) and the samples command's arguments."""

from __future__ import annotations

import pytest
from asiworld.cli import main
from asiworld.headless.samples import SAMPLES, SAMPLES_DIR
from asiworld.replay.library import find_replays
from asiworld.replay.reader import Replay


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
    with ReplayLibrary([tmp_path]) as library:
        (row,) = library.listing()
    assert row["id"] == "broken" and row["error"] == "not_a_replay"


def test_the_samples_command_lists_its_samples_and_refuses_unknown_ones(capsys):
    assert main(["replay", "samples", "--list"]) == 0
    assert "nine-characters-60min" in capsys.readouterr().out
    assert main(["replay", "samples", "--only", "nope"]) == 2
    assert "unknown_sample" in capsys.readouterr().err
    assert main(["replay", "samples", "--minutes", "0"]) == 2


# What the docs promise each sample shows (docs/replay-viewer.md): a dungeon cleared, a boss
# defeated, a character knocked down and back on its feet.
SHOWN = {
    "a dungeon clear": lambda e: e["kind"] == "dungeon_left" and e.get("cleared"),
    "a boss defeat": lambda e: e["kind"] == "boss_defeated",
    "a knockdown": lambda e: e["kind"] == "down",
    "a recovery": lambda e: e["kind"] == "recovered",
}


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
def test_each_shipped_sample_shows_a_clear_a_boss_defeat_a_knockdown_and_a_recovery(sample):
    path = SAMPLES_DIR / f"{sample.name}.asirep"
    with Replay.open(path) as replay:
        events = list(replay.events(kinds={"dungeon_left", "boss_defeated", "down", "recovered"}))
        # the shipped file is the sample `asiworld replay samples` makes now
        assert [c["label"] for c in replay.characters()] == list(sample.agents)
        assert replay.header.seed == sample.seed
        assert replay.last_tick == sample.minutes * 60
    missing = [what for what, seen in SHOWN.items() if not any(seen(e) for e in events)]
    assert not missing, f"{sample.name} lacks {', '.join(missing)}"


def test_closing_the_library_closes_every_replay_it_kept_open(tmp_path):
    import shutil

    from asiworld.replay.library import ReplayLibrary

    shutil.copy(SAMPLES_DIR / f"{SAMPLES[0].name}.asirep", tmp_path / "a.asirep")
    library = ReplayLibrary([tmp_path])
    replay = library.get("a")
    assert library.get("a") is replay and not replay._file.closed  # kept open between requests
    library.close()
    assert replay._file.closed
    assert library.get("a") is not replay  # opened again when asked again
    library.close()
