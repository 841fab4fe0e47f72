"""Replay files: the recorder writes a run's frames, inputs, events and hashes; the reader seeks.

The package's names are imported when first used (PEP 562), as asiworld.engine's are: `asiworld
replay --help` reads its flags (asiworld.replay.command_line) without the reader and the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from asiworld.lazy import lazy_names

if TYPE_CHECKING:
    from .apply import apply_frame
    from .format import EXTENSION, SCHEMA_VERSION, ReplayError
    from .header import Configuration, ReplayHeader
    from .reader import Replay
    from .recorder import Recorder

_HOME = {"apply_frame": "apply", "EXTENSION": "format", "SCHEMA_VERSION": "format",
         "ReplayError": "format", "Configuration": "header", "ReplayHeader": "header",
         "Replay": "reader", "Recorder": "recorder"}
__all__ = [
    "EXTENSION",
    "SCHEMA_VERSION",
    "Configuration",
    "Recorder",
    "Replay",
    "ReplayError",
    "ReplayHeader",
    "apply_frame",
]


__getattr__ = lazy_names(__name__, _HOME, globals())
