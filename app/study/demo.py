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
              size: int = 64) -> str:
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
                     "request_timeout = 5.0\n")
    for name, agent in BUILTINS.items():
        parts.append(f'[[configuration]]\nname = "{name}"\nkind = "builtin"\nagent = "{agent}"\n')
    return "\n".join(parts)
