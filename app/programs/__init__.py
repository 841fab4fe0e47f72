"""Hosted agent programs: sandboxed scripts that keep acting on the world clock.

`compiler` turns source into guarded code, `runtime` runs one program as a greenlet, `host` keeps
all programs (in a resource-limited process or in-process), and `manager` is the engine-side bridge
a runner calls around `world.step()`.
"""

from asiworld.programs.limits import Budget

__all__ = ["Budget"]
