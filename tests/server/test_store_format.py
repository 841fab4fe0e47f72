"""A data directory holds world snapshots in the engine's plain-data schema (store format 2).
One written before (format 1: snapshots as Python pickles) is refused with a sentence that says
so, and nothing in it is unpickled or changed.

Bad inputs tried: a format-1 directory with a pickled snapshot that would call a function, a
directory of the current format whose snapshot bytes were replaced by a pickle."""

from __future__ import annotations

import pytest
from asiworld.server.persistence import FORMAT, StoreError, WorldStore
from asiworld.server.settings import ServerSettings

from tests.engine.hostile import CALLS, hostile_pickle


def saved_world(apps, path) -> None:
    app, store = apps.build(ServerSettings(seed=5, data_dir=path, snapshot_every=20))
    store.close()


def tamper(path, fmt: int | None) -> bytes:
    store = WorldStore(path)
    blob = hostile_pickle(tick=0, seed=5)
    store.db.execute("UPDATE snapshots SET world = ?", (blob,))
    if fmt is not None:
        store._set_meta("format", fmt)
    store.close()
    return blob


def test_a_store_of_pickled_snapshots_is_refused_and_left_as_it_is(apps, tmp_path):
    saved_world(apps, tmp_path)
    blob = tamper(tmp_path, 1)
    with pytest.raises(StoreError) as err:
        apps.build(ServerSettings(data_dir=tmp_path))
    assert "store format 1" in str(err.value) and "pickle" in str(err.value)
    assert "new --data-dir" in str(err.value)
    store = WorldStore(tmp_path)
    assert store.meta("format") == 1
    assert store.db.execute("SELECT world FROM snapshots").fetchone()[0] == blob
    store.close()
    assert CALLS == []


def test_a_pickle_in_place_of_a_snapshot_is_not_unpickled(apps, tmp_path):
    saved_world(apps, tmp_path)
    tamper(tmp_path, None)
    store = WorldStore(tmp_path)
    with pytest.raises(StoreError) as err:
        store.load_world()
    store.close()
    assert "snapshot_pickled" in str(err.value)
    assert CALLS == []


def test_a_saved_world_resumes_from_its_snapshot(apps, tmp_path):
    saved_world(apps, tmp_path)
    store = WorldStore(tmp_path)
    assert store.meta("format") == FORMAT
    world = store.load_world()
    store.close()
    assert world.seed == 5
