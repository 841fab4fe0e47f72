"""Socket.IO test clients that see the server's messages in the order they arrive.

python-engineio's client hands each message to a thread of its own (`run_async=True` in
`Client._trigger_event`), so on a loaded machine a later message's thread can run before an
earlier one's: a keyframe, whose thread also decodes a large payload, was listed after the delta
that followed it (seen at load 8-15 by the front-end fan-out test and, at load 8-11, by the
eventlet spectator test). A browser's client reads in order; these clients handle each message
on the reading thread, as it does. A handler must then not wait for the server itself (no
`call` from inside a handler)."""

from __future__ import annotations

from typing import Any

import socketio


class OrderedClient(socketio.Client):
    """socketio.Client that handles each message on its reading thread."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        trigger = self.eio._trigger_event

        def handled_in_turn(event: str, *args: Any, **kwargs: Any) -> Any:
            if event == "message":
                kwargs["run_async"] = False
            return trigger(event, *args, **kwargs)

        self.eio._trigger_event = handled_in_turn


class OrderedSimpleClient(socketio.SimpleClient):
    """socketio.SimpleClient whose `receive()` gives the messages in the order they arrived."""

    client_class = OrderedClient
