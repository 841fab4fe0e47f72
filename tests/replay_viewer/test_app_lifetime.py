"""asiworld.server.close_app: an app made for a while (a test, a notebook) is closed when done,
and nothing it opened is left to the garbage collector. Its replay files once were: a later test
on the same worker failed for their unclosed-file warnings."""

from __future__ import annotations

from asiworld.replay import Replay
from asiworld.replay.library import find_replays
from asiworld.server import close_app, create_app, services
from asiworld.server.replay_library import replay_services

RID = "demo"


def test_closing_an_app_closes_the_replay_files_its_answers_opened(replay_dir):
    app = create_app({"SEED": 7, "SPEED": 10, "REPLAY_DIRS": [str(replay_dir)]})
    assert app.test_client().get(f"/api/replays/{RID}").status_code == 200
    opened = replay_services(app)[0].get(RID)  # the file the answer opened, kept by the app
    assert not opened.closed
    close_app(app)
    assert opened.closed


def test_closing_an_app_stops_its_clock_and_closing_it_again_changes_nothing(replay_dir):
    app = create_app({"SEED": 7, "SPEED": 50, "REPLAY_DIRS": [str(replay_dir)]})
    runner = services(app).runner
    runner.start()
    close_app(app)
    assert not runner.running
    tick = runner.world.tick
    close_app(app)
    assert not runner.running and runner.world.tick == tick


def test_closing_an_app_that_records_leaves_a_complete_replay(tmp_path):
    app = create_app({"SEED": 3, "WORLD_SIZE": 48, "TESTING": True, "RECORD_DIR": str(tmp_path),
                      "REPLAY_DIRS": [], "AGENTS": ["forager"]})
    services(app).runner.step(61)
    close_app(app)
    [path] = find_replays([tmp_path]).values()
    with Replay.open(path) as replay:
        assert replay.complete  # the index written: a clean stop
