"""Two short studies of one seed to compare (the API tests and the /compare browser tests), and
a run of another seed and size.

    a      seed 3, 48×48, 3 min: "llm" on the stand-in model's forager play, "player" the
           built-in forager, "planner"
    b      the same world: "llm" on the stand-in's programmer play, "player" the built-in
           planner, "rusher"
    other  a headless run of seed 4 on a 64×64 map, 1 min: the forager alone

So "llm" and "player" are in both ("player" scores 8.3 in a, 25 in b), "planner" only in a,
"rusher" only in b, and both llm seats have model turns.
"""

from __future__ import annotations

from pathlib import Path

SEED = 3


def study_text(url: str, model: str, player: str, other: str) -> str:
    return (f'title = "{model}"\n\n[world]\nseed = {SEED}\nminutes = 3\nsize = 48\n'
            'entry = "synchronised"\n\n'
            '[clock]\nkind = "lockstep"\nthink = "fixed"\nthink_ticks = 4\n\n'
            f'[[configuration]]\nname = "llm"\nkind = "openai"\nmodel_url = "{url}"\n'
            f'model = "{model}"\npause_ticks = 10\nbackoff_seconds = 0.0\nrequest_timeout = 5.0\n\n'
            f'[[configuration]]\nname = "player"\nkind = "builtin"\nagent = "{player}"\n\n'
            f'[[configuration]]\nname = "{other}"\nkind = "builtin"\nagent = "{other}"\n')


def record(folder: Path) -> Path:
    """Write folder/a, folder/b (studies, with results.json beside each replay) and folder/other
    (a headless run); returns `folder`, to serve as REPLAY_DIRS."""
    from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer
    from asiworld.evaluation.figure_options import FigureOptions
    from asiworld.headless.run import Run, RunConfig
    from asiworld.study.run import run_study
    from asiworld.study.spec import parse_study

    with FakeModelServer(FakeModel()) as fake:
        for name, model, player, other in (("a", "fake-forager", "forager", "planner"),
                                           ("b", "fake-programmer", "planner", "rusher")):
            text = study_text(fake.url, model, player, other)
            run_study(parse_study(text), text, folder / name, say=lambda line: None,
                      figures=FigureOptions(formats=()))
    Run(RunConfig(seed=SEED + 1, minutes=1, size=64, agents=["forager"],
                  out=folder / "other", figures=FigureOptions(formats=()))).run()
    return folder
