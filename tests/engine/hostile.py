"""A pickle that calls a function when it is loaded, as a hostile replay or database would hold
one. `CALLS` records every call, so a test shows that nothing in it ran."""

from __future__ import annotations

import pickle

CALLS: list[str] = []


def _side_effect(text: str) -> str:
    CALLS.append(text)
    return text


class _Evil:
    def __reduce__(self):
        return (_side_effect, ("ran",))


def hostile_pickle(protocol: int = pickle.DEFAULT_PROTOCOL, **fields) -> bytes:
    """A pickled dict shaped like an old snapshot (`fields`) with a payload that would run."""
    return pickle.dumps({**fields, "x": _Evil()}, protocol)
