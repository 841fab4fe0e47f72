"""ASIWorld: a persistent survival sandbox for evaluating long-running AI agents."""

__version__ = "0.1.0"


def _own_command() -> bool:
    """Whether this process is one of asiworld's own commands: the `asiworld` console script,
    or `python -m asiworld...` (while a -m target's package is imported, argv[0] is still
    "-m"). They are not Gymnasium programs, and their start-up (`asiworld mcp` answers a coding
    agent's `initialize` in about half a second) should not pay Gymnasium's import (numpy and
    Gymnasium, about 0.25 s here)."""
    import os
    import sys

    first = sys.argv[0] if sys.argv else ""
    return first == "-m" or os.path.basename(first) in ("asiworld", "asiworld.exe")


def _register_gymnasium_ids() -> None:
    """The Gymnasium ids `ASIWorld-v0` and `ASIWorldText-v0`, registered on `import asiworld`
    as environment packages do, so `gymnasium.make("asiworld:ASIWorld-v0")` works anywhere and
    `gymnasium.make("ASIWorld-v0")` once asiworld is imported (editable installs and wheels
    alike). Only strings are registered: the environment, let alone the server, is imported
    when an id is made. An install without Gymnasium (`make serve`'s) has nothing to register."""
    import sys
    from importlib.util import find_spec

    if "gymnasium" not in sys.modules and (_own_command() or find_spec("gymnasium") is None):
        return
    # only once the checks above found Gymnasium wanted and installed (an optional dependency)
    from asiworld.agents.envs.gym_register import register_envs

    register_envs()


_register_gymnasium_ids()
