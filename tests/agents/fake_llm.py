"""The scripted stand-in model of the harness tests: asiworld's fake model (app/agents/
fake_model.py) answering from a script of steps, each a tool call, an HTTP error status, a stall
longer than the client's timeout, or plain text."""

from __future__ import annotations

from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer


def tool(name: str, /, **args) -> dict:
    return {"tool": (name, args)}


class FakeLLM(FakeModelServer):
    def __init__(self, script: list[dict]) -> None:
        super().__init__(FakeModel(script=script))
