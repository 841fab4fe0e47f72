"""The server's settings: flags over `ASIWORLD_*` variables over defaults, one typed object for
`asiworld serve` and `wsgi_app()`, and a bad variable refused in one line before anything starts.

Bad inputs tried (each as a variable `asiworld serve` reads): a seed that is a word and one below
0, a speed of 0, of nan and a word, a snapshot interval of 0, a switch that is neither on nor
off, an async mode that does not exist, a character cap that is a word, a program memory too small
for an interpreter, a negative connection cap, a data dir and a record dir that name files; and
`wsgi_app()` without its admin token."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from asiworld.cli import main
from asiworld.server import commands
from asiworld.server.settings import ENVIRONMENT, ServerSettings, SettingsError

ROOT = Path(__file__).resolve().parents[2]


def parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    commands.register(parser.add_subparsers())
    return parser.parse_args(["serve", *argv])


def test_a_flag_wins_over_its_variable_and_a_variable_over_the_default(tmp_path):
    env = {"ASIWORLD_SEED": "4", "ASIWORLD_MAX_CHARACTERS": "20", "ASIWORLD_FSYNC": "1",
           "ASIWORLD_DATA_DIR": str(tmp_path / "env")}  # fmt: skip
    settings = ServerSettings.from_args(parsed("--seed", "9", "--data-dir", str(tmp_path)), env)
    assert settings.seed == 9 and settings.data_dir == tmp_path  # the flags
    assert settings.max_characters == 20 and settings.fsync is True  # the variables
    assert settings.speed == 10.0 and settings.port == 8000  # the defaults
    assert ServerSettings.from_args(parsed(), {}) == ServerSettings()


def test_every_variable_fills_its_setting(tmp_path):
    env = {
        "ASIWORLD_SEED": "3", "ASIWORLD_SPEED": "2.5", "ASIWORLD_AGENTS": "forager, planner",
        "ASIWORLD_DATA_DIR": str(tmp_path / "d"), "ASIWORLD_RECORD_DIR": str(tmp_path / "r"),
        "ASIWORLD_SNAPSHOT_EVERY": "30", "ASIWORLD_FSYNC": "true", "ASIWORLD_ADMIN_TOKEN": "a",
        "ASIWORLD_SPECTATOR_TOKEN": "s", "ASIWORLD_JOIN_TOKEN": "j",
        "ASIWORLD_MAX_CHARACTERS": "7", "ASIWORLD_PROGRAMS_KEPT": "5",
        "ASIWORLD_PROGRAMS_MEMORY": "600", "ASIWORLD_PROGRAM_MEMORY": "300",
        "ASIWORLD_MAX_CONNECTIONS": "8", "ASIWORLD_MESSAGE_QUEUE": "redis://127.0.0.1:9/0",
        "ASIWORLD_ASYNC_MODE": "eventlet", "ASIWORLD_GRACE_NIGHTS": "2",
    }  # fmt: skip
    assert set(env) == {variable for variable, _parse in ENVIRONMENT.values()}
    assert ServerSettings.from_env(env) == ServerSettings(
        seed=3, speed=2.5, agents=("forager", "planner"), data_dir=tmp_path / "d",
        record_dir=tmp_path / "r", snapshot_every=30, fsync=True, admin_token="a",
        spectator_token="s", join_token="j", max_characters=7, programs_kept=5,
        programs_memory=600, program_memory=300, max_connections=8,
        message_queue="redis://127.0.0.1:9/0", async_mode="eventlet", grace_nights=2,
    )  # fmt: skip


def test_an_empty_variable_is_unset_but_an_empty_data_dir_is_no_data_dir():
    settings = ServerSettings.from_env({"ASIWORLD_SEED": "", "ASIWORLD_DATA_DIR": ""})
    assert settings.seed is None and settings.world_dir is None


def test_a_flag_given_leaves_a_bad_variable_unread():
    settings = ServerSettings.from_args(parsed("--seed", "2"), {"ASIWORLD_SEED": "abc"})
    assert settings.seed == 2


@pytest.mark.parametrize(
    "variable, bad, code",
    [
        ("ASIWORLD_SEED", "abc", "bad_environment"),
        ("ASIWORLD_SEED", "-1", "bad_environment"),
        ("ASIWORLD_SPEED", "0", "bad_environment"),
        ("ASIWORLD_SPEED", "nan", "bad_environment"),
        ("ASIWORLD_SPEED", "fast", "bad_environment"),
        ("ASIWORLD_SNAPSHOT_EVERY", "0", "bad_environment"),
        ("ASIWORLD_FSYNC", "maybe", "bad_environment"),
        ("ASIWORLD_ASYNC_MODE", "gevent", "bad_environment"),
        ("ASIWORLD_MAX_CHARACTERS", "lots", "bad_max_characters"),
        ("ASIWORLD_PROGRAM_MEMORY", "64", "bad_program_memory"),
        ("ASIWORLD_MAX_CONNECTIONS", "-1", "bad_max_connections"),
        ("ASIWORLD_GRACE_NIGHTS", "-1", "bad_grace_nights"),
        ("ASIWORLD_GRACE_NIGHTS", "two", "bad_grace_nights"),
        ("ASIWORLD_DATA_DIR", "A_FILE", "not_a_folder"),
        ("ASIWORLD_RECORD_DIR", "A_FILE", "not_a_folder"),
    ],
)
def test_serve_refuses_a_bad_variable_in_one_line_before_starting(
    variable, bad, code, capsys, tmp_path, monkeypatch
):
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    monkeypatch.setenv(variable, str(a_file) if bad == "A_FILE" else bad)
    status = main(["serve", "--data-dir", str(tmp_path / "data")] if variable !=
                  "ASIWORLD_DATA_DIR" else ["serve"])  # fmt: skip
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(f"error: {code}: {variable} "), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "data").exists()


def test_wsgi_app_needs_its_admin_token(monkeypatch, tmp_path):
    from asiworld.server.wsgi import wsgi_app

    monkeypatch.delenv("ASIWORLD_ADMIN_TOKEN", raising=False)
    monkeypatch.setenv("ASIWORLD_DATA_DIR", str(tmp_path / "data"))
    with pytest.raises(SettingsError) as err:
        wsgi_app()
    assert err.value.code == "admin_token_required" and "ASIWORLD_ADMIN_TOKEN" in str(err.value)
    assert not (tmp_path / "data").exists()
    assert commands.wsgi_app is wsgi_app  # the gunicorn path documented before still works


def test_the_operations_page_names_every_flag_and_variable():
    page = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    table = page.split("## Commands", 1)[1].split("\n## ", 1)[0]
    from dataclasses import fields

    missing = [
        "--" + spec.name.replace("_", "-") for spec in fields(ServerSettings)
        if f"`--{spec.name.replace('_', '-')}" not in table
    ] + [variable for variable, _parse in ENVIRONMENT.values() if f"`{variable}`" not in table]
    assert missing == [], f"docs/operations.md, *Commands*, does not name {missing}"


def test_play_is_a_preset_for_people_at_two_ticks_a_second(tmp_path):
    """`serve --play`: the pace a person can play at; an explicit --speed still wins, and so
    does the preset over $ASIWORLD_SPEED (a flag wins over its variable)."""
    data = ("--data-dir", str(tmp_path))
    assert ServerSettings.from_args(parsed("--play", *data), {}).speed == 2.0
    assert ServerSettings.from_args(parsed("--play", *data), {"ASIWORLD_SPEED": "20"}).speed == 2.0
    assert ServerSettings.from_args(parsed("--play", "--speed", "5", *data), {}).speed == 5.0


# Bad input tried: a negative and a non-number --grace-nights, and grace on a study's world (whose
# rules are the study's, the same on `study run`). Each is refused before anything starts.
@pytest.mark.parametrize(
    "args, code",
    [
        (["--grace-nights", "-1"], "bad_grace_nights"),
        (["--grace-nights", "many"], "bad_grace_nights"),
        (["--grace-nights", "1", "--study", "s.toml"], "bad_argument"),
    ],
)
def test_serve_refuses_a_bad_grace_before_starting(args, code, capsys, tmp_path):
    status = main(["serve", *args, "--data-dir", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith(f"error: {code}: "), err
    assert "Traceback" not in err and not (tmp_path / "data").exists()


def test_a_server_gives_every_character_joining_its_grace_nights(apps):
    """`serve --grace-nights 2`: /api/world says so, and a player's observation counts down the
    nights shades spare it; the world's built-in agents join with it too."""
    from asiworld.server import services

    app = apps.create({"SEED": 3, "WORLD_SIZE": 48, "GRACE_NIGHTS": 2, "AGENTS": ["forager"]})
    runner = services(app).runner
    body = app.test_client().get("/api/world").get_json()
    assert body["grace_nights"] == 2
    cid = runner.add_character("learner")
    assert runner.world.observe(cid)["self"]["grace_nights_left"] == 2
    assert {c.grace_nights for c in runner.world.characters()} == {2}
