"""How deep a JSON message may nest, checked on the raw text before any parser sees it.

Python's json parser recurses once per level, so a body of 5,000 `[` ends in a RecursionError
(and Flask's HTML 500 page) before any schema or token is looked at. Every message this server
takes is at most a few levels deep (an action's `party` list is the deepest: 3), so anything
deeper than MAX_DEPTH is refused from a linear scan of the bytes: REST bodies in
validation.check_request, Socket.IO payloads through `BoundedJSON`, the json module given to the
Socket.IO server.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

MAX_DEPTH = 32

# A JSON string (skipped whole, so brackets inside text do not count) or one bracket.
_STRUCTURE = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_OPENS = frozenset(b"[{")


def too_deep(raw: bytes | str, limit: int = MAX_DEPTH) -> bool:
    """True when the text opens more than `limit` arrays or objects inside each other.
    Linear in the text's length; malformed text may count high, never low."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if data.count(b"[") + data.count(b"{") <= limit:  # nearly every message: no scan at all
        return False
    depth = 0
    for match in _STRUCTURE.finditer(data):
        token = match.group()
        if len(token) != 1:
            continue  # a string
        if token[0] in _OPENS:
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


class TooDeep:
    """Stands in for a Socket.IO payload nested too deeply to parse; the event guard
    (validation.check_event) refuses it with `too_deep` like any other bad payload."""

    def __repr__(self) -> str:
        return "<too deep>"


TOO_DEEP = TooDeep()
_EVENT_NAME = re.compile(r'\s*\[\s*"([A-Za-z0-9_\-]{1,64})"')


class BoundedJSON:
    """The json module for python-socketio (`SocketIO(json=BoundedJSON)`): the standard one,
    except that a packet nested past MAX_DEPTH is not parsed. An array (an event: name, then
    payload) becomes [its name, TOO_DEEP], so the acknowledgement says which event was refused;
    anything else (a connect's auth) becomes TOO_DEEP. No schema accepts TOO_DEEP."""

    @staticmethod
    def dumps(obj: Any, *args: Any, **kwargs: Any) -> str:
        # Every frame goes out through here (python-socketio asks for compact separators):
        # orjson writes the same JSON in about a tenth of the json module's time (a 1,000-
        # character frame is the largest message). What orjson cannot write (a whole number past
        # 64 bits), and any other option, goes to the json module as before.
        if not args and set(kwargs) <= {"separators"}:
            try:
                return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()
            except TypeError:
                pass
        return json.dumps(obj, *args, **kwargs)

    @staticmethod
    def loads(text: str | bytes, *args: Any, **kwargs: Any) -> Any:
        if not too_deep(text):
            return json.loads(text, *args, **kwargs)
        text = text if isinstance(text, str) else text.decode("utf-8", "replace")
        if not text.lstrip().startswith("["):
            return TOO_DEEP
        name = _EVENT_NAME.match(text)
        return [name.group(1) if name else "", TOO_DEEP]
