"""Program ids per character, the journal that brings programs back after a restart, and the
bound on the ended programs a character keeps."""

from __future__ import annotations

import random

import pytest
from asiworld.engine import World
from asiworld.programs.manager import ProgramManager

from tests.programs.helpers import run_ticks, run_until_done

LONG = "while True:\n    wait(10)\n"


@pytest.fixture
def world():
    return World.create(seed=3, size=48)


def test_program_ids_count_per_character_and_another_characters_id_is_an_unused_one(world):
    ada, bob = world.add_character(name="ada"), world.add_character(name="bob")
    manager = ProgramManager(world, in_process=True)
    assert manager.submit(ada, "one", LONG)["id"] == 1
    assert manager.submit(ada, "two", LONG)["id"] == 2  # replaces one
    assert manager.submit(bob, "first", LONG)["id"] == 1  # whatever ada submitted
    assert manager.status(bob, 1)["name"] == "first" and manager.status(ada, 1)["name"] == "one"
    # bob asking for ada's program 2 gets what an id nobody used gets
    assert manager.status(bob, 2) is None and manager.status(bob, 99) is None
    for pid in (2, 99):
        assert manager.cancel(bob, pid) == {
            "ok": False,
            "code": "unknown_program",
            "message": f"this character has no program {pid}",
        }
    assert manager.status(ada, 2)["status"] == "running"  # bob's cancel changed nothing
    # the host's keys are unique in the world: three programs, three keys
    assert sorted(r.key for r in manager.records.values()) == [1, 2, 3]


def test_the_program_seed_follows_the_world_wide_key_as_before(world):
    # The seed of a program's random is the world's seed, the character and the host's key:
    # for the first program of a world that is what the global id was, so old runs repeat.
    ada = world.add_character(name="ada")
    manager = ProgramManager(world, in_process=True)
    pid = manager.submit(ada, "draw", "def main():\n    return random.random()\n")["id"]
    first = run_until_done(manager, world, ada, pid)["outcome"]["value"]
    assert first == random.Random(f"{world.seed}:{ada}:1").random()


def test_a_restart_brings_back_every_journaled_submission_and_end(world):
    ada, bob = world.add_character(name="ada"), world.add_character(name="bob")
    journal: list[dict] = []
    manager = ProgramManager(world, in_process=True)
    manager.journal = journal.append
    manager.submit(ada, "early", LONG)
    run_ticks(manager, world, 2)
    state = manager.to_state()  # the snapshot
    saved = len(journal)
    manager.submit(ada, "late", LONG)  # replaces early: an end and a submission
    bob_pid = manager.submit(bob, "cancelled", LONG)["id"]
    manager.cancel(bob, bob_pid)
    quick = manager.submit(bob, "quick", "log('hi')\n")["id"]
    run_until_done(manager, world, bob, quick)
    after = journal[saved:]
    assert [e["kind"] for e in after].count("program_submitted") == 3

    revived = ProgramManager(world, in_process=True)
    revived.restore_state(state, after)
    assert revived.status(ada, 1)["outcome"]["error"]["code"] == "replaced"
    assert revived.status(ada, 2)["status"] == "interrupted"  # submitted after the snapshot
    assert revived.status(bob, 1)["outcome"]["error"]["code"] == "cancelled"
    assert revived.status(bob, 2)["status"] == "finished"
    # no id and no key is given twice
    assert revived.submit(ada, "again", LONG)["id"] == 3
    assert revived.submit(bob, "again", LONG)["id"] == 3
    keys = [r.key for r in revived.records.values()]
    assert len(set(keys)) == len(keys) == 6


def test_the_interrupted_end_is_journaled_so_a_second_restart_keeps_it(world):
    ada = world.add_character(name="ada")
    manager = ProgramManager(world, in_process=True)
    journal: list[dict] = []
    manager.journal = journal.append
    manager.submit(ada, "long", LONG)
    run_ticks(manager, world, 2)
    first = ProgramManager(world, in_process=True)
    first.journal = journal.append
    first.restore_state({}, list(journal))
    message = first.status(ada, 1)["outcome"]["error"]["message"]
    assert journal[-1]["kind"] == "program_ended" and journal[-1]["status"] == "interrupted"
    run_ticks(first, world, 5)
    second = ProgramManager(world, in_process=True)
    second.restore_state({}, list(journal))
    assert second.status(ada, 1)["outcome"]["error"]["message"] == message  # the first restart's


def test_a_state_saved_when_ids_were_global_reads_as_keys(world):
    ada = world.add_character(name="ada")
    old = {
        "next_id": 29,
        "records": [{"id": 28, "char": ada, "name": "x", "submitted": 0, "status": "running"}],
    }
    manager = ProgramManager(world, in_process=True)
    manager.restore_state(old)
    assert manager.status(ada, 28)["status"] == "interrupted"
    assert manager.submit(ada, "next", LONG)["id"] == 29
    assert manager.record(ada, 29).key == 29


def test_a_character_keeps_its_newest_ended_programs_only(world):
    ada, bob = world.add_character(name="ada"), world.add_character(name="bob")
    manager = ProgramManager(world, in_process=True, ended_kept=3)
    bob_pid = manager.submit(bob, "steady", LONG)["id"]
    for n in range(1, 7):
        pid = manager.submit(ada, f"p{n}", "log('x')\n")["id"]
        run_until_done(manager, world, ada, pid)
    assert [r.name for r in manager.programs_of(ada)] == ["p4", "p5", "p6"]
    assert manager.status(ada, 1) is None  # forgotten, and its id is not given again
    assert manager.submit(ada, "p7", LONG)["id"] == 7
    assert manager.status(bob, bob_pid)["status"] in ("running", "waiting")  # bob keeps his
    assert len(manager.programs_of(ada)) == 4  # three ended and the running one


@pytest.mark.parametrize("bad", [0, -1, 1.5, "3", None])
def test_the_ended_programs_bound_is_a_whole_number_of_at_least_one(world, bad):
    with pytest.raises(ValueError, match="ended_kept"):
        ProgramManager(world, in_process=True, ended_kept=bad)


@pytest.mark.parametrize("bad", ["abc", "0", "-3", "1.5", ""])
def test_serve_refuses_a_bad_programs_kept_before_starting(bad, capsys, tmp_path):
    from asiworld.cli import main

    code = main(["serve", "--programs-kept", bad, "--data-dir", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: bad_programs_kept: --programs-kept is a whole number")
    assert "Traceback" not in err
    assert not (tmp_path / "data").exists()


def test_a_server_keeps_as_many_ended_programs_per_character_as_configured(apps):
    from asiworld.server import services

    app = apps.create({"PROGRAMS_KEPT": 2, "PROGRAMS_IN_PROCESS": True})
    assert services(app).runner.pipeline.programs.ended_kept == 2
