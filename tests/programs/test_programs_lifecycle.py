"""Programs on the real engine: blocking across ticks, cancel, the direct-action rule, feedback,
determinism, restarts and a crashed host."""

from __future__ import annotations

from asiworld.engine import World
from asiworld.programs.manager import ProgramManager

from tests.programs.helpers import run_ticks, run_until_done


def test_a_long_wait_blocks_the_program_across_ticks_and_resumes_with_the_result(
    world, char, manager
):
    pid = manager.submit(
        char, "nap", "r = wait(10)\nlog('woke', tick())\ndef main():\n    return r\n"
    )["id"]
    run_ticks(manager, world, 3)
    status = manager.status(char, pid)
    assert status["status"] == "waiting"
    assert status["waiting_for"]["type"] == "wait" and status["line"] == 1
    status = run_until_done(manager, world, char, pid)
    assert status["status"] == "finished"
    assert manager.logs(char, pid) == ["woke 10"]


def test_a_parked_program_is_not_in_the_per_tick_work(world, char, manager):
    manager.submit(char, "nap", "wait(50)\n")
    run_ticks(manager, world, 2)
    assert manager.runnable == set()


def test_an_infinite_loop_without_api_calls_is_preempted_each_tick_and_the_world_ticks(
    world, char, manager
):
    pid = manager.submit(char, "spin", "while True:\n    pass\n")["id"]
    run_ticks(manager, world, 3)
    status = manager.status(char, pid)
    assert status["status"] == "running" and status["line"] == 2
    assert status["steps_tick"] == manager.budget.steps_per_tick
    assert world.tick == 3


def test_cancel_stops_the_program_and_says_so(world, char, manager):
    pid = manager.submit(char, "walker", "while True:\n    wait(5)\n")["id"]
    run_ticks(manager, world, 2)
    assert manager.cancel(char, pid)["ok"]
    status = manager.status(char, pid)
    assert status["status"] == "stopped"
    assert status["outcome"]["error"]["code"] == "cancelled"
    assert manager.cancel(char, pid)["code"] == "not_running"
    assert manager.cancel(char, 999)["code"] == "unknown_program"
    run_ticks(manager, world, 10)
    assert manager.status(char, pid)["status"] == "stopped"


def test_a_direct_action_stops_the_program_but_say_does_not(world, char, manager):
    pid = manager.submit(char, "walker", "while True:\n    wait(5)\n")["id"]
    run_ticks(manager, world, 2)
    assert manager.submit_direct(char, {"type": "say", "text": "hi"}).ok
    run_ticks(manager, world, 1)
    assert manager.status(char, pid)["status"] == "waiting"
    assert manager.submit_direct(char, {"type": "move", "dir": "n"}).ok
    status = manager.status(char, pid)
    assert status["status"] == "stopped"
    assert status["outcome"]["error"]["code"] == "direct_action"


def test_a_direct_action_submitted_straight_to_the_world_also_stops_the_program(
    world, char, manager
):
    pid = manager.submit(char, "walker", "while True:\n    wait(5)\n")["id"]
    run_ticks(manager, world, 2)
    assert world.submit(char, {"type": "move", "dir": "n"}).ok
    run_ticks(manager, world, 1)
    assert manager.status(char, pid)["outcome"]["error"]["code"] == "direct_action"


def test_a_new_program_replaces_the_characters_running_program(world, char, manager):
    first = manager.submit(char, "one", "while True:\n    wait(5)\n")["id"]
    second = manager.submit(char, "two", "wait(1)\n")["id"]
    assert manager.status(char, first)["outcome"]["error"]["code"] == "replaced"
    assert run_until_done(manager, world, char, second)["status"] == "finished"


def test_observation_extra_carries_status_calls_logs_and_the_outcome(world, char, manager):
    pid = manager.submit(char, "hello", "log('hi')\nmove('n')\ncraft('iron_sword')\n")["id"]
    run_until_done(manager, world, char, pid)
    extra = manager.observation_extra(char)
    assert extra["programs"][0]["status"] == "failed"
    kinds = [e["kind"] for e in extra["program_events"]]
    assert (
        kinds[0] == "program_started" and "program_log" in kinds and kinds[-1] == "program_failed"
    )
    calls = [e for e in extra["program_events"] if e["kind"] == "program_call"]
    assert calls[0]["ok"] and calls[0]["action"] == {"type": "move", "dir": "n"}
    assert not calls[1]["ok"] and calls[1]["code"] == "missing_materials"
    error = manager.outcome(char, pid)["error"]
    assert error["line"] == 3 and error["message"].startswith("line 3: ")
    assert manager.observation_extra(char)["program_events"] == []


def test_a_rerun_with_the_same_inputs_gives_the_same_world():
    source = (
        "def main():\n"
        "    for i in range(6):\n"
        "        move(random.choice(['n', 's', 'e', 'w']))\n"
        "    return position()\n"
    )
    hashes = []
    for _ in range(2):
        world = World.create(seed=3)
        char = world.add_character(name="ada")
        manager = ProgramManager(world, in_process=True)
        pid = manager.submit(char, "dance", source)["id"]
        run_ticks(manager, world, 30)
        hashes.append((world.state_hash(), manager.outcome(char, pid)))
    assert hashes[0] == hashes[1]


def test_after_a_restart_running_programs_are_marked_interrupted(world, char, manager):
    pid = manager.submit(char, "long", "wait(100)\n")["id"]
    run_ticks(manager, world, 2)
    state = manager.to_state()
    revived = ProgramManager(world, in_process=True)
    revived.restore_state(state)
    status = revived.status(char, pid)
    assert status["status"] == "interrupted"
    assert "submit it again" in status["outcome"]["error"]["message"]
    assert revived.observation_extra(char)["program_events"][-1]["kind"] == "program_interrupted"


def test_programs_in_the_process_host_behave_like_in_process(world, char):
    source = "def main():\n    move('e')\n    r = wait(2)\n    return [r, position()]\n"
    outcomes = []
    for in_process in (True, False):
        w = World.create(seed=7)
        c = w.add_character(name="ada")
        m = ProgramManager(w, in_process=in_process)
        pid = m.submit(c, "same", source)["id"]
        run_until_done(m, w, c, pid)
        outcomes.append((m.outcome(c, pid), w.state_hash()))
        m.close()
    assert outcomes[0] == outcomes[1]


CROWD = """
i = 0
while True:
    try:
        move(random.choice(['n', 'e', 's', 'w']))
    except GameError as e:
        log(e.code)
        if i % 7 == 0:
            observe()
    i += 1
"""


def test_a_crowd_of_programs_bumping_into_each_other_gives_one_world_in_either_host():
    # Refused moves are answered within the tick while other programs' slices are still
    # streaming in; the world must not depend on how the two processes' timing fell out.
    outcomes = []
    for in_process in (True, False, False):
        w = World.create(seed=7)
        m = ProgramManager(w, in_process=in_process)
        chars = [w.add_character(name=f"c{i}") for i in range(9)]
        pids = [(c, m.submit(c, "crowd", CROWD)["id"]) for c in chars]
        run_ticks(m, w, 120)
        refusals = sum(len(m.logs(c, pid)) for c, pid in pids)
        outcomes.append((w.state_hash(), [m.logs(c, pid) for c, pid in pids]))
        m.close()
        assert refusals > 20  # the crowd did bump: refusals were answered inside ticks
    assert outcomes[0] == outcomes[1] == outcomes[2]


def test_a_crashed_host_fails_its_program_and_the_world_keeps_ticking(world, char):
    manager = ProgramManager(world)  # real host processes, one per program
    bob = world.add_character(name="bob")
    other = manager.submit(bob, "steady", "while True:\n    wait(1)\n")
    pid = manager.submit(char, "long", "while True:\n    wait(3)\n")["id"]
    run_ticks(manager, world, 2)
    manager._host.hosts[manager.record(char, pid).key].process.kill()  # the host's own name
    run_ticks(manager, world, 5)
    status = manager.status(char, pid)
    assert status["status"] == "failed"
    assert status["outcome"]["error"]["code"] == "host_crashed"
    assert manager.status(bob, other["id"])["status"] in ("running", "waiting")  # its own process
    again = manager.submit(char, "again", "move('n')\n")["id"]
    assert run_until_done(manager, world, char, again)["status"] == "finished"
    assert manager._host.killed == 1 and manager.host_restarts == 0
    manager.close()
