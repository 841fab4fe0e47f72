"""ASIWorld: a persistent survival sandbox for evaluating long-running AI agents."""

__version__ = "0.1.0"


def _register_gymnasium_ids() -> None:
    """The Gymnasium ids `ASIWorld-v0` and `ASIWorldText-v0`, registered on `import asiworld`
    as environment packages do, so `gymnasium.make("asiworld:ASIWorld-v0")` works anywhere and
    `gymnasium.make("ASIWorld-v0")` once asiworld is imported (editable installs and wheels
    alike). Only strings are registered: the environment, let alone the server, is imported
    when an id is made. An install without Gymnasium (`make serve`'s) has nothing to register."""
    from importlib.util import find_spec

    if find_spec("gymnasium") is None:
        return
    from asiworld.agents.gym_register import register_envs

    register_envs()


_register_gymnasium_ids()
