"""Replay files: the recorder writes a run's frames, inputs, events and hashes; the reader seeks."""

from .apply import apply_frame
from .format import EXTENSION, SCHEMA_VERSION, ReplayError
from .header import Configuration, ReplayHeader
from .reader import Replay
from .recorder import Recorder

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
