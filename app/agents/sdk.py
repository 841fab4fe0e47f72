"""The public import path of the SDK: `from asiworld.agents.sdk import Client`.

The code lives with the other clients (asiworld.agents.clients.sdk); this path stays put
for the researchers' code that imports it."""

from asiworld.agents.clients.sdk import ApiError, Client, ServerUnreachable

__all__ = ["Client", "ApiError", "ServerUnreachable"]
