"""`asiworld serve --study STUDY.toml --out DIR`: a study on the live server.

The study is `asiworld study run`'s own `StudyRun` (app/study/run.py): its world, its pipeline
with every configuration seated at tick 0, its model seats, its recording into DIR/replay.asirep
and its results. The only difference is the clock: the server's WorldRunner steps that pipeline
(a lockstep study's model seats still make the runner wait for each answer due, so the state hash
is the one `study run` gives; a realtime study runs at its own speed). A lockstep study with
outside seats is stepped turn by turn on a thread of its own, exactly as `study run` steps it
(`StudyRun._lockstep_turns`), at most --speed ticks a second; its runner only serves calls and
refuses an admin's pause, resume and step (`turn_stepped`). Meanwhile the browser
watches it: /live, /evaluation (the countdown to the horizon and the live table, from
`status()`), and /replays lists DIR/replay.asirep as it is written.

At the horizon the runner stops before its next tick and DIR gets what `study run` writes
(results.json, report.md, figures/, events.jsonl; the transcripts and the replay were written
as it ran). The server keeps serving the finished world and its results.

The study's world holds its seats only: a join needs a join token (`--join-token`, else one
nobody is told). External seats are seated on this server's own agent API: their tokens are
printed, the clock starts once each has made a call (as `study run` waits for them), and with
an agent under test on the server the whole-world views need the spectator token (printed, or
`--spectator-token`), so it sees only its own view.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from asiworld.engine import codes
from asiworld.engine.frames import FrameBuilder
from asiworld.evaluation.figure_options import DEFAULT, FORMAT_SETS, FigureOptions
from asiworld.pipeline import Tick
from asiworld.realtime import WorldRunner
from asiworld.server.auth import new_token
from asiworld.server.extensions import AGENTS, RECORDING, STUDY
from asiworld.server.settings import ServerSettings

from .commands import earlier_study, resumes
from .run import StudyRun, write_study
from .seats import check_endpoints
from .spec import Lockstep, Study, StudyError, load_study

log = logging.getLogger(__name__)


class LiveStudy:
    """One study world on the server's clock, and what /evaluation says about it."""

    def __init__(self, study: Study, text: str, out: Path, where: str, speed: float,
                 url: str = "http://127.0.0.1:8000", join_token: str | None = None,
                 spectator_token: str | None = None, resume: bool = False,
                 figures: FigureOptions = DEFAULT) -> None:
        seeds = study.world.seed_list()
        if len(seeds) != 1:
            raise StudyError(
                codes.SEVERAL_SEEDS,
                f"the study lists {len(seeds)} seeds; the live server runs one world: give the "
                "study one seed, or run it with asiworld study run",
            )

        self.study, self.out, self.url = study, Path(out), url.rstrip("/")
        self.figures = figures  # the figure files written at the horizon
        # Only the study's seats play its world; the external seats play on this server's own
        # agent API, so with them here the whole world is watched with the spectator token.
        self.join_token = join_token or new_token()
        outside = any(c.kind in ("external", "human") for c in study.configurations)
        self.spectator_token = spectator_token or (new_token() if outside else None)
        self.run = StudyRun(study, text, self.out, seeds[0], where, resume=resume,
                            serve_external=False)
        self.horizon = self.run.horizon
        clock = study.clock
        self.speed = speed if isinstance(clock, Lockstep) else clock.speed
        # what /live's banner calls it: its title, else its file's name
        self.name = study.title or Path(where).stem
        self.runner = WorldRunner(self.run.pipeline, speed=self.speed)
        self.runner.horizon = self.horizon
        self.finished = threading.Event()
        self.results: dict[str, Any] | None = None
        self.problem: str | None = None
        self._began: float | None = None
        self._finishing = False
        self.entered = threading.Event()  # every external seat has called: the clock runs
        # A lockstep study with outside seats is stepped turn by turn on a thread of its own
        # (StudyRun._lockstep_turns, as `study run` steps it), at most `speed` ticks a second
        self._turns: threading.Thread | None = None
        self._halt = threading.Event()
        self._due: float | None = None

    # --- what create_app needs -----------------------------------------------------------

    def prepare(self) -> dict[str, Any]:
        """Seat the configurations and start the recording; the create_app settings that put
        this pipeline on the server (its runner, its built-in agents, DIR among the replays)."""
        # its store, its seats, and an interrupted study brought back (study/resume.py)
        self.run.begin(self.runner, say=_say)
        # The recording's frame builder is the pipeline's: the live rooms and the replay see
        # the same frames, built once per tick.
        self.run.pipeline.frames = self.run.recording.frames or FrameBuilder(self.run.world)
        self.run.pipeline.watch(self._at_horizon)
        return {
            "RUNNER": self.runner,
            "BUILTIN": self.run.builtins,
            "SEED": self.run.seed,
            "SPEED": self.speed,
            "JOIN_TOKEN": self.join_token,
            "SPECTATOR_TOKEN": self.spectator_token,
        }

    def attach(self, app: Any) -> None:
        app.extensions[STUDY] = self
        app.extensions[RECORDING] = self  # /replays badges DIR/replay.asirep
        if self.run.external is not None:
            self.run.external.seat_on(app.extensions[AGENTS], self.url, _say)
            _say(f"  spectate: {self.url}/live?spectator_token={self.spectator_token}")

    def start(self) -> None:
        """Start the clock (the runner) and the realtime model seats; with external seats the
        runner serves their calls paused until each has called (synchronised entry)."""
        external = self.run.external
        if external is None:
            self._enter()
            return
        if self.run.turns is not None:
            self._turns = threading.Thread(target=self._play_turns, name="study-turns",
                                           daemon=True)
            self._turns.start()
            return
        self.runner.paused = True
        self.runner.start()
        threading.Thread(target=self._wait_for_entry, name="study-entry", daemon=True).start()

    def _wait_for_entry(self) -> None:
        try:
            self.run.external.wait_for_entry(_say)
        except StudyError as exc:  # the world never starts; /evaluation and the log say why
            self.problem = exc.message
            log.error("%s: %s", exc.code, exc.message)
            return
        if not self._finishing:  # not stopped (Ctrl-C) meanwhile
            self.runner.resume()
            self._enter()

    def _enter(self) -> None:
        self._began = time.perf_counter()
        self.entered.set()
        self.runner.start()
        self.run.start_models()

    def _play_turns(self) -> None:
        """The study's turns to its horizon, then its folder (on this thread); a seat that
        never came is an incident there, as on `study run`."""
        try:
            self.run._lockstep_turns(_say, entered=self._enter, pace=self._pace,
                                     halted=self._halt.is_set)
        except StudyError as exc:  # a resumed study that played differently (resume_diverged)
            self.problem = exc.message
            log.error("%s: %s", exc.code, exc.message)
            return
        except Exception as exc:  # shown on /evaluation; the log has the traceback
            if self._halt.is_set():
                return  # the server stopped under it (Ctrl-C)
            self.problem = f"the study's turns stopped ({type(exc).__name__}: {exc})"
            log.exception("the study's turns stopped")
            return
        if self._halt.is_set():
            return
        self._finishing = True
        self.finish()

    def _pace(self) -> None:
        """At most `speed` ticks a second, so the study can be watched (the turns decide what
        happens, never the pace)."""
        now = time.monotonic()
        due = now if self._due is None else self._due
        if due > now:
            self._halt.wait(due - now)
        self._due = max(due, time.monotonic() - 1.0) + 1.0 / self.runner.speed

    # --- /replays (the recording's file) -------------------------------------------------

    @property
    def path(self) -> Path:
        return self.run.recording.recorder.path

    @property
    def recording(self) -> Any:
        return None if self.finished.is_set() else self.run.recording

    # --- the horizon ---------------------------------------------------------------------

    def _at_horizon(self, tick: Tick) -> None:
        """On the runner thread: at the horizon the clock stops before its next tick, and the
        study's folder is written on another thread (finishing stops this one)."""
        if tick.tick < self.horizon or self._finishing or self._turns is not None:
            return  # a turn-stepped study is finished by its turns' thread
        self._finishing = True
        self.runner.paused = True
        if self.run.external is not None:  # the server goes on answering them: 410 from now
            self.run.external.end(tick.tick)
        threading.Thread(target=self.finish, name="study-finish", daemon=True).start()

    def finish(self) -> None:
        """Stop the seats and the clock, close the replay, write DIR (once)."""
        if self.finished.is_set():
            return
        wall = time.perf_counter() - (self._began or time.perf_counter())
        try:
            self.run.realtime_wall = wall
            self.run.finish()
            self.results = self.run.results(wall)
            write_study(self.out, self.run, self.results, figures=self.figures)
            log.info("the study reached its horizon (tick %d): wrote %s", self.horizon, self.out)
        except Exception as exc:  # shown on /evaluation; the log has the traceback
            self.problem = ("the study reached its horizon but its results could not be written "
                            f"({type(exc).__name__}: {exc})")
            log.exception("the study's results could not be written")
        finally:
            self.finished.set()

    def status(self) -> dict[str, Any]:
        """For /api/evaluation: the countdown to the horizon and where the results go."""
        tick = self.run.world.tick
        left = max(0, self.horizon - tick)
        return {
            "title": self.study.title,
            "out": str(self.out),
            "horizon": self.horizon,
            "tick": tick,
            "ticks_left": left,
            "seconds_left": round(left / self.speed, 1),
            "speed": self.speed,
            "clock": self.study.clock.describe(),
            "finished": self.finished.is_set(),
            "state_hash": (self.results or {}).get("state_hash"),
            "problem": self.problem,
            # external seats that have not made their first call: the clock waits for them
            "waiting_for": [] if self.entered.is_set() or self.run.external is None
            else self.run.external.absent(),
        }

    def banner(self) -> dict[str, Any]:
        """What /live's banner needs ("Study NAME · minute M of H"): the page counts the minute
        from the world's tick in its frames, so a resumed study shows where its world is."""
        return {"name": self.name, "minutes": self.study.world.minutes,
                "ticks_per_minute": self.run.content.time.ticks_per_minute,
                "horizon": self.horizon, "clock": self.study.clock.describe()}

    def stop(self) -> None:
        """The server stops (Ctrl-C): a study stopped before its horizon closes its replay and
        writes no results; one that reached it waits for its folder to be written."""
        if self._finishing:
            self.finished.wait(60)
            return
        self._finishing = True
        self._halt.set()
        if self._turns is not None:  # wake it from a seat's turn, and let its tick end
            self.run.turns.end(self.run.world.tick)
            self._turns.join(30)
        self.run.finish()


def open_study(settings: ServerSettings) -> LiveStudy:
    """The LiveStudy for `asiworld serve --study FILE [--out DIR] [--speed S]`; StudyError for
    a bad file, a study of several seeds, or an --out holding an earlier study."""
    assert settings.study is not None  # serve opens a study only when one is given
    study, text = load_study(settings.study)
    out = settings.out
    if out is None:
        out = Path(f"{Path(settings.study).stem}-live-{time.strftime('%Y%m%d-%H%M%S')}")
    # serve has no --force: another study's interrupted folder is resume_mismatch
    resume = resumes(study, text, out, remedy="give another --out")
    if resume:
        _say(f"{out} holds this study, interrupted: resuming it (another --out starts it "
             "again)")
    else:
        earlier_study(out)
    if len(study.world.seed_list()) == 1:  # several are refused below, whatever the models
        check_endpoints(study)  # before anything is written
    out.mkdir(parents=True, exist_ok=True)
    return LiveStudy(study, text, out, str(settings.study), float(settings.speed),
                     url=settings.url, join_token=settings.join_token,
                     spectator_token=settings.spectator_token, resume=resume,
                     figures=FigureOptions(formats=FORMAT_SETS[settings.figures or "all"]))


def _say(line: str) -> None:
    print(f"  {line}" if not line.startswith(" ") else line, flush=True)
