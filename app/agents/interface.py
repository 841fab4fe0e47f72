"""The public import path of the agent interface: `from asiworld.agents.interface import Decision`.

The code lives with the other clients (asiworld.agents.clients.interface); this path stays put
for the researchers' code that imports it."""

from asiworld.agents.clients.interface import Decision, StudyAgent, act, program

__all__ = ["Decision", "act", "program", "StudyAgent"]
