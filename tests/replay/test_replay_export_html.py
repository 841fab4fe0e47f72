"""`asiworld replay export --html`: one HTML file holding the viewer and the whole replay, and
the refusals that write nothing."""

from __future__ import annotations

import base64
import gzip
import json
import re

import pytest
from asiworld.cli import main
from asiworld.replay import Recorder, ReplayHeader
from asiworld.replay.library import ReplayLibrary
from asiworld.server.replay_export import KEYFRAME_EVERY
from engine_runs import SIZE, record_engine_run

TICKS = 700  # past one kept keyframe interval, so a second keyframe is kept


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    """A run's folder as `asiworld run --record` leaves it: one replay.asirep inside."""
    folder = tmp_path_factory.mktemp("export") / "walkers"
    folder.mkdir()
    header = ReplayHeader(seed=5, width=SIZE, height=SIZE, configurations=[{"name": "walker"}])
    with Recorder(folder / "replay.asirep", header, keyframe_every=240, frames_per_chunk=60) as r:
        record_engine_run(r, seed=5, ticks=TICKS)
    return folder


def embedded(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="asiworld-export">(.*?)</script>', html, re.S)
    assert found, "the page keeps its data in one JSON script element"
    assert "<" not in found.group(1), "no text in the data can end its script element"
    return json.loads(found.group(1))


def unpacked(b64: str):
    return json.loads(gzip.decompress(base64.b64decode(b64)))


def test_the_html_file_holds_the_viewer_and_every_frame_of_the_replay(run_folder, tmp_path, capsys):
    out = tmp_path / "shared.html"
    assert main(["replay", "export", "--html", str(out), str(run_folder / "replay.asirep")]) == 0
    assert "wrote" in capsys.readouterr().out
    html = out.read_text(encoding="utf-8")
    # Nothing is fetched from a server: no stylesheet, module or picture by URL.
    assert not re.search(r'(src|href)="/static/', html)
    assert '<script type="importmap">' in html and 'import "asiworld/replay.js"' in html
    data = embedded(html)
    library = ReplayLibrary([run_folder])
    try:
        meta = library.meta(data["id"])
        assert unpacked(data["meta"])["frame_chunks"] == meta["frame_chunks"]
        assert len(data["chunks"]) == len(meta["frame_chunks"])
        last = len(meta["frame_chunks"]) - 1
        assert unpacked(data["chunks"][last]) == json.loads(
            gzip.decompress(library.frame_chunk(data["id"], last)[0]))
        assert sorted(map(int, data["keyframes"])) == list(range(0, TICKS + 1, KEYFRAME_EVERY))
        assert unpacked(data["keyframes"][str(KEYFRAME_EVERY)]) == library.frame_at(
            data["id"], KEYFRAME_EVERY)
        assert unpacked(data["why"]) == library.why(data["id"])  # the Why tab, offline too
    finally:
        library.close()


def test_a_runs_folder_names_its_replay(run_folder, tmp_path):
    out = tmp_path / "run.html"
    assert main(["replay", "export", str(run_folder), "--html", str(out)]) == 0
    assert embedded(out.read_text(encoding="utf-8"))["id"] == "walkers"


def test_bad_input_is_refused_with_a_code_and_writes_nothing(run_folder, tmp_path, capsys):
    out = tmp_path / "out.html"

    def refused(args: list[str], code: str) -> None:
        assert main(["replay", "export", *args]) == 2
        err = capsys.readouterr().err
        assert f"error: {code}:" in err and len(err.strip().splitlines()) == 1, err
        assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "junk.asirep"]

    (tmp_path / "empty").mkdir()
    junk = tmp_path / "junk.asirep"
    junk.write_bytes(b"\x00" * 100)
    replay = str(run_folder / "replay.asirep")
    refused(["--html", str(out), str(tmp_path / "gone.asirep")], "file_not_found")
    refused(["--html", str(out), str(junk)], "not_a_replay")
    refused(["--html", str(out), str(tmp_path / "empty")], "unknown_replay")
    refused(["--html", str(tmp_path / "no-such-folder" / "out.html"), replay], "folder_not_found")
    refused(["--html", str(tmp_path / "empty"), replay], "not_a_file")
