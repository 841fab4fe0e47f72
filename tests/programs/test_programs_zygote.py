"""Program hosts are forked from the pool's zygote (asiworld.programs.zygote) instead of each
starting a Python interpreter: still one process per program, under the same limits, with
nothing of the zygote open; a zygote that is gone costs a plain start-up, never a program."""

from __future__ import annotations

import os
import signal
import time

from asiworld.engine import World
from asiworld.programs.manager import ProgramManager

from tests.programs.helpers import run_until_done

WAITS = "wait(50)\n"
COUNTS = "n = 0\nwhile n < 3:\n    wait(1)\n    n += 1\n"


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rpartition(")")[2].split()[1])


def test_each_program_runs_in_its_own_process_forked_from_the_zygote():
    world = World.create(seed=3, size=48)
    ann, bob = world.add_character(name="ann"), world.add_character(name="bob")
    manager = ProgramManager(world, in_process=False)
    try:
        one = manager.submit(ann, "one", WAITS)["id"]
        two = manager.submit(bob, "two", WAITS)["id"]
        pool = manager._host
        hosts = [pool.hosts[manager.record(c, p).key].process.pid for c, p in ((ann, one),
                                                                               (bob, two))]
        assert hosts[0] != hosts[1] and os.getpid() not in hosts
        zygote = pool.zygote.process.pid
        assert [parent_of(pid) for pid in hosts] == [zygote, zygote]
        for pid in hosts:
            assert sorted(os.listdir(f"/proc/{pid}/fd"), key=int) == ["0", "1", "2"]
            with open(f"/proc/{pid}/limits") as f:
                limits = f.read()
            assert f"Max address space         {1 << 30}" in limits
            assert "Max open files            16" in limits
    finally:
        manager.close()


def test_a_host_killed_by_a_signal_is_reported_with_that_signal():
    world = World.create(seed=3, size=48)
    ann = world.add_character(name="ann")
    manager = ProgramManager(world, in_process=False)
    try:
        pid = manager.submit(ann, "one", WAITS)["id"]
        process = manager._host.hosts[manager.record(ann, pid).key].process
        process.send_signal(signal.SIGXCPU)
        assert process.wait(timeout=10) == -signal.SIGXCPU  # as the pool reads RLIMIT_CPU
    finally:
        manager.close()


def test_without_its_zygote_the_pool_starts_hosts_the_plain_way():
    world = World.create(seed=3, size=48)
    ann, bob = world.add_character(name="ann"), world.add_character(name="bob")
    manager = ProgramManager(world, in_process=False)
    try:
        first = manager.submit(ann, "first", WAITS)["id"]
        pool = manager._host
        zygote = pool.zygote.process
        zygote.kill()
        zygote.wait(timeout=10)
        process = pool.hosts[manager.record(ann, first).key].process
        assert process.wait(timeout=10) == -signal.SIGKILL  # its hosts die with it
        time.sleep(0.1)
        reply = manager.submit(bob, "counting", COUNTS)
        assert reply["ok"], reply
        assert run_until_done(manager, world, bob, reply["id"], limit=50)["status"] == "finished"
        host = pool.hosts.get(manager.record(bob, reply["id"]).key)
        assert host is None or parent_of(host.process.pid) == os.getpid()
    finally:
        manager.close()


def test_closing_the_pool_ends_the_zygote_and_every_host():
    world = World.create(seed=3, size=48)
    ann = world.add_character(name="ann")
    manager = ProgramManager(world, in_process=False)
    pid = manager.submit(ann, "one", WAITS)["id"]
    pool = manager._host
    host = pool.hosts[manager.record(ann, pid).key].process.pid
    zygote = pool.zygote.process
    manager.close()
    assert zygote.poll() is not None
    assert not os.path.exists(f"/proc/{host}") or open(f"/proc/{host}/stat").read().split()[2] == "Z"


def test_a_host_started_ahead_has_its_spare_up_before_any_program():
    # A realtime study starts its host before the clock: the zygote's imports and the first
    # fork held the tick of the first program otherwise.
    world = World.create(seed=3, size=48)
    ann = world.add_character(name="ann")
    manager = ProgramManager(world, in_process=False)
    try:
        manager.start_host(wait=True)
        pool = manager._host
        assert pool.spare is not None and parent_of(pool.spare.process.pid) == pool.zygote.process.pid
        assert manager.submit(ann, "counting", COUNTS)["ok"]
        assert run_until_done(manager, world, ann, 1, limit=50)["status"] == "finished"
    finally:
        manager.close()


def test_a_host_that_takes_no_input_is_given_up_after_its_timeout_not_waited_on_for_ever():
    """Writing to a host that stopped reading (stopped here; stuck in C, or blocked writing a
    reply nobody reads, in a world) fills its pipe. The write gives up after the host's timeout
    and the host is treated as crashed, instead of holding the world's thread in the write."""
    import threading

    from asiworld.programs.host import HostCrashed, ProcessHost

    host = ProcessHost(timeout=0.5)
    outcome: list[BaseException | None] = []

    def write_more_than_a_pipe_holds() -> None:
        try:
            host.request({"op": "drop", "pids": [], "padding": "x" * (1 << 20)})
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - what ended the request is the answer
            outcome.append(exc)

    try:
        host.process.send_signal(signal.SIGSTOP)
        writer = threading.Thread(target=write_more_than_a_pipe_holds, daemon=True)
        writer.start()
        writer.join(30)
        assert not writer.is_alive(), "the write to a host that takes no input never ended"
        assert isinstance(outcome[0], HostCrashed), outcome
        assert host.process.poll() is not None  # and the stuck host is gone
    finally:
        if host.process.poll() is None:
            host.process.kill()
            host.process.wait(5)
