"""World snapshots inside a replay (chunk kind W): a point of view or a fork deep into a long run
starts from the nearest one instead of re-simulating from the seed.

The recorder stores `World.snapshot()` taken at the same moment as that tick's state hash (after
the step that reached it, before its inputs), without the input log (the replay has it, and a
log carried in every snapshot would make them grow with the run). The payload is
zlib(pickle); a pickle can run code when loaded, and replays are shared files, so a snapshot is
first read by `check_blob`, which refuses any global that is not an engine class, an engine
function, numpy's array rebuilding or `random.Random`, before `World.restore` sees it.

A snapshot is only used after it proved itself (`Snapshots.load` in app/replay/worlds.py): its
tick, its input-log position and its state hash must match what the replay recorded.
"""

from __future__ import annotations

import io
import pickle
import types
import zlib
from typing import Any

from .format import ReplayError

ENGINE_MODULES = ("asiworld.engine.", "asiworld.engine")
# What numpy and the standard library need to rebuild a world (arrays, dtypes, the generator).
ALLOWED = {
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.numeric", "_frombuffer"),
    ("random", "Random"),
    ("collections", "deque"),
    ("collections", "OrderedDict"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
}


def world_blob(world: Any) -> bytes | None:
    """The world's snapshot for a replay: zlib(pickle) without its input log, or None when the
    world has submitted actions waiting for the next step (a re-simulation feeds those from the
    log, so the snapshot would apply them twice)."""
    if getattr(world, "pending", None) or not hasattr(world, "snapshot"):
        return None
    state = pickle.loads(world.snapshot())
    # Absolute row numbers stay right: the rows before this tick are "forgotten" (in the replay).
    state["input_log_base"] = int(state.get("input_log_base", 0)) + len(state["input_log"])
    state["input_log"] = []
    return zlib.compress(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL), 6)


class _EngineOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in ALLOWED:
            return super().find_class(module, name)
        if module.startswith(ENGINE_MODULES) and "." not in name:
            found = super().find_class(module, name)
            # A class or function defined in the engine, not something it imported (os, ...).
            owner = getattr(found, "__module__", "") or ""
            if isinstance(found, type | types.FunctionType) and owner.startswith(ENGINE_MODULES):
                return found
        raise pickle.UnpicklingError(f"the snapshot refers to {module}.{name}")


def check_blob(payload: bytes) -> bytes:
    """The pickled world inside a W chunk's payload, once it is known to load only engine
    objects; ReplayError `bad_snapshot` otherwise."""
    try:
        blob = zlib.decompress(payload)
        state = _EngineOnly(io.BytesIO(blob)).load()
    except Exception as exc:  # any failure to read it means: do not use this snapshot
        raise ReplayError("bad_snapshot", f"the world snapshot cannot be read ({exc})") from None
    if not isinstance(state, dict) or not {"tick", "seed", "input_log_base"} <= state.keys():
        raise ReplayError("bad_snapshot", "the world snapshot is not a world's state")
    return blob
