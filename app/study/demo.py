"""The demo study: nine configurations in one world, six of them language-model seats through
the fake model (`asiworld fake-model`) with different harness settings, three built-ins. It is
what `asiworld study new --demo` writes, what the README runs, and what the end-to-end test and
the study benchmark run."""

from __future__ import annotations

FAKE_URL = "http://127.0.0.1:8765/v1"

# name -> harness settings; the fake model's play is picked by the model name
MODEL_SEATS: dict[str, str] = {
    "forager-a": 'model = "fake-forager"\npause_ticks = 20',
    "forager-b": 'model = "fake-forager"\npause_ticks = 40\nhistory = 0\ntemperature = 0.7',
    "explorer": 'model = "fake-explorer"\npause_ticks = 30\nmax_tokens = 64',
    "programmer": 'model = "fake-programmer"\npause_ticks = 60',
    "no-programs": 'model = "fake-programmer"\npause_ticks = 45\nprograms = false',
    "short-memory": 'model = "fake-forager"\npause_ticks = 25\nhistory = 2\nmax_retries = 2',
}
BUILTINS: dict[str, str] = {"forager": "forager", "planner": "planner", "rusher": "rusher"}
LOCKSTEP = 'kind = "lockstep"\nthink = "fixed"\nthink_ticks = 4'


def demo_text(url: str = FAKE_URL, minutes: int = 60, clock: str = LOCKSTEP, seed: int = 3,
              size: int = 64, request_timeout: float = 5.0) -> str:
    """The demo study's TOML. A call that outlasts `request_timeout` is a failed call, and a
    failed call changes the world: a check that two runs give the same world gives it room."""
    parts = [
        "# The demo study: start the stand-in model first (asiworld fake-model --port 8765),\n"
        "# then: asiworld study run demo.toml --out demo/\n"
        f'title = "nine configurations"\n\n[world]\nseed = {seed}\nminutes = {minutes}\n'
        f'size = {size}\nentry = "synchronised"\n',
        f"[clock]\n{clock}\n",
    ]
    for name, settings in MODEL_SEATS.items():
        parts.append(f'[[configuration]]\nname = "{name}"\nkind = "openai"\n'
                     f'model_url = "{url}"\n{settings}\nbackoff_seconds = 0.0\n'
                     f"request_timeout = {request_timeout}\n")
    for name, agent in BUILTINS.items():
        parts.append(f'[[configuration]]\nname = "{name}"\nkind = "builtin"\nagent = "{agent}"\n')
    return "\n".join(parts)


LOCAL_URL = "http://127.0.0.1:8080/v1"  # asiworld model serve's default port


def local_text(url: str = LOCAL_URL, minutes: int = 10, seed: int = 3, size: int = 64) -> str:
    """A study with a real language model: two SmolLM2-135M seats on `asiworld model serve`
    (one asked for one JSON action under the server's constrained decoding, one read for
    commands in its text) and the built-in planner, on the lockstep clock. What `asiworld study
    new --local-model` writes."""
    seat = ('[[configuration]]\nname = "{name}"\nkind = "openai"\n'
            f'model_url = "{url}"\nmodel = "smollm2-135m-instruct"\n'
            "# a 135M model on one thread: the compact tool list keeps its prompt small, and\n"
            "# a turn every 200 ticks keeps a 10-minute study to a few minutes\n"
            'tool_schemas = "compact"\nprograms = false\nhistory = 4\npause_ticks = 200\n'
            "request_timeout = 600.0\nmax_retries = 1\n{extra}\n")
    return "\n".join([
        "# A study with a real local model: start it first (asiworld model serve --port 8080),\n"
        "# then: asiworld study run local.toml --out local/\n"
        f'title = "SmolLM2-135M and the planner"\n\n[world]\nseed = {seed}\n'
        f'minutes = {minutes}\nsize = {size}\n',
        '[clock]\nkind = "lockstep"\nthink = "tokens"\nthink_ticks = 3\ntokens_per_tick = 20\n',
        seat.format(name="smol-json", extra='text_actions = "json"\nmax_tokens = 48'),
        seat.format(name="smol-text", extra='text_actions = "parse"\nmax_tokens = 24'),
        '[[configuration]]\nname = "planner"\nkind = "builtin"\nagent = "planner"\n',
    ])
