"""A saving server's world forgets the input-log rows it has saved, beyond a bound, so neither
its memory nor its snapshots grow with the hours; what it saved still resumes the same world.

Bad inputs tried: forgetting past the end of the log, forgetting rows already forgotten."""

from __future__ import annotations

from asiworld.engine import World
from asiworld.server.persistence import WorldStore
from asiworld.server.settings import ServerSettings


def test_a_world_forgets_old_input_rows_and_keeps_numbering_them():
    world = World.create(seed=3, size=48)
    ada = world.add_character("ada")
    for i in range(6):
        world.submit(ada, {"type": "move", "dir": "nsew"[i % 4]})
        world.step()
    rows = list(world.input_log)
    world.forget_inputs(4)
    assert world.input_log_base == 4 and world.input_log == rows[4:]
    assert world.inputs_since(5) == rows[5:] and world.inputs_since(0) == rows[4:]
    assert world.input_log_end == len(rows) and world.inputs_since(6) == rows[6:]
    world.forget_inputs(2)  # already forgotten: nothing changes
    world.forget_inputs(10_000)  # past the end: the log is emptied, the numbering goes on
    assert world.input_log == [] and world.input_log_end == len(rows)
    again = World.restore(world.snapshot())
    assert again.input_log_base == len(rows) and again.state_hash() == world.state_hash()


def test_a_saving_server_keeps_a_bounded_log_and_resumes_the_same_world(apps, tmp_path):
    settings = ServerSettings(seed=5, data_dir=tmp_path, snapshot_every=20, admin_token="admin")
    app, store = apps.build(settings)
    store.input_log_kept = 8
    from asiworld.server import services

    runner = services(app).runner
    world = runner.world
    ada = runner.call(lambda: world.add_character("ada"))
    for i in range(70):
        runner.submit(ada, {"type": "move", "dir": "nsew"[i % 4]})
        runner.advance()
    assert len(world.input_log) <= 10 and world.input_log_base > 0
    assert world.input_log_end == 71  # the join and one move per tick, all counted
    store.close()

    again = WorldStore(tmp_path)
    resumed = again.load_world()
    again.close()
    assert resumed.tick == world.tick and resumed.state_hash() == world.state_hash()
