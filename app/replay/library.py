"""The replays a server offers: found in folders, named by a stable id, opened once and shared.

A replay's id is its file name without `.asirep`, or the run folder's name for `DIR/replay.asirep`
(what `asiworld run --out DIR` writes). Ids are letters, digits, `.`, `_` and `-`; a second file
with the same id gets `-2`, `-3`, ... in folder order.
"""

from __future__ import annotations

import bisect
import gzip
import json
import logging
import pickle
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from asiworld.engine import codes
from asiworld.evaluation.why import why_summaries

from .apply import apply_frame, copy_state, keyframe_frame
from .format import EXTENSION, ReplayError
from .phases import timeline
from .reader import Replay
from .turns import marker, readable

log = logging.getLogger(__name__)

ID_PATTERN = re.compile(r"^[A-Za-z0-9_.\-]{1,80}$")
SERIES_EVERY = 30  # ticks between two chart samples
SERIES_FIELDS = ("health", "hunger", "energy", "coins")
# Events too chatty for the viewer's log (every accepted action and finished op).
QUIET_EVENTS = {"action", "op_done", "op_cancelled", "dropped", "picked_up"}
MAX_STATES = 600  # cached seek states (one per frame chunk reached); ~32 KB each, pickled
MAX_CHUNK_BYTES = 64 * 2**20  # gzipped frame-chunk responses kept (~13 KB each for 9 characters)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-]+", "-", text).strip("-.") or "replay"


def find_replays(folders: Iterable[str | Path]) -> dict[str, Path]:
    """id -> path for every `*.asirep` in the folders and their direct sub-folders."""
    found: dict[str, Path] = {}
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            continue
        paths = sorted(folder.glob(f"*{EXTENSION}")) + sorted(folder.glob(f"*/*{EXTENSION}"))
        for path in paths:
            base = _slug(path.parent.name if path.stem == "replay" else path.stem)[:72]
            rid, n = base, 1
            while rid in found:
                n += 1
                rid = f"{base}-{n}"
            found[rid] = path
    return found


def replay_path(given: Path) -> Path:
    """The replay file itself, or the one replay of a run's or study's folder."""
    if not given.is_dir():
        return given
    found = list(find_replays([given]).values())
    if len(found) != 1:
        what = "no replay" if not found else f"{len(found)} replays"
        raise ReplayError(codes.UNKNOWN_REPLAY,
                          f"{given} holds {what}; name the .asirep file to export")
    return found[0]


RETIRED_SECONDS = 60.0  # a replaced replay file is closed this long after


class ReplayLibrary:
    """Open replays and what the viewer derives from them (timeline, chart series), cached."""

    def __init__(self, folders: Iterable[str | Path]) -> None:
        self.folders = [Path(f) for f in folders]
        self._lock = threading.Lock()
        self._open: dict[Path, tuple[float, Replay]] = {}
        self._derived: dict[tuple[Path, float, str], Any] = {}
        # The spectator state at frame-chunk starts already reached: a seek then applies at most
        # one chunk of frames instead of up to a keyframe interval of them. Kept pickled: bytes
        # are not tracked by Python's garbage collector, and hundreds of states as dicts made
        # each full collection 100-200 ms longer (a pause any request could land in).
        self._states: OrderedDict[tuple[Path, int], bytes] = OrderedDict()
        # Frame chunks as the browser receives them (gzipped JSON), so a chunk asked for again,
        # or warmed in the background, costs no decoding, JSON or gzip on the request's path.
        self._chunk_bodies: OrderedDict[tuple[Path, float, int], tuple[bytes, int]] = OrderedDict()
        self._chunk_bytes = 0
        self._seek_lock = threading.Lock()
        self._seeks_waiting = 0  # the background warm-up steps aside while seeks are answered
        self._warming: set[str] = set()
        self._retired: list[tuple[float, Replay]] = []  # replaced while a request may read it

    def paths(self) -> dict[str, Path]:
        return find_replays(self.folders)

    def close(self) -> None:
        """Close every replay file kept open (a server keeps them for its life; an app made
        for a while, as in tests, closes them when done)."""
        with self._lock:
            for _, replay in self._open.values():
                replay.close()
            self._open.clear()
            for _, replay in self._retired:
                replay.close()
            self._retired.clear()

    def __enter__(self) -> ReplayLibrary:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, rid: str) -> Replay:
        """The open replay for `rid`; ReplayError `unknown_replay` when there is none."""
        if not ID_PATTERN.match(rid or ""):
            raise ReplayError(codes.UNKNOWN_REPLAY, "a replay id is letters, digits, '.', '_', '-'")
        path = self.paths().get(rid)
        if path is None:
            raise ReplayError(codes.UNKNOWN_REPLAY, f"there is no replay {rid!r}")
        mtime = path.stat().st_mtime
        with self._lock:
            known = self._open.get(path)
            if known is not None and known[0] == mtime:
                return known[1]
            replay = Replay.open(path)  # a file still being written is read up to its last chunk
            if known is not None:
                # Another request may be reading the older one right now (a growing live
                # recording changes at every segment): it is closed a while later, not now.
                self._retired.append((time.monotonic(), known[1]))
            self._close_retired()
            self._open[path] = (mtime, replay)
            return replay

    def _close_retired(self) -> None:
        while self._retired and time.monotonic() - self._retired[0][0] > RETIRED_SECONDS:
            self._retired.pop(0)[1].close()

    def _cached(self, replay: Replay, name: str, build: Any) -> Any:
        key = (replay.path, replay.path.stat().st_mtime, name)
        with self._lock:
            if key in self._derived:
                return self._derived[key]
        value = build()
        with self._lock:
            self._derived[key] = value
        return value

    # -- what the pages show ----------------------------------------------------------------

    def listing(self) -> list[dict[str, Any]]:
        rows = []
        for rid, path in self.paths().items():
            try:
                replay = self.get(rid)
                rows.append(
                    {
                        "id": rid,
                        "path": str(path),
                        **self._cached(replay, "provenance", lambda r=replay: provenance(r)),
                        "outcomes": self.outcomes(path),
                    }
                )
            except ReplayError as exc:
                rows.append({"id": rid, "file": path.name, "error": exc.code, "message": str(exc)})
            except Exception as exc:  # untrusted bytes: one bad file never hides the others
                rows.append({"id": rid, "file": path.name, "error": "damaged_replay",
                             "message": f"{type(exc).__name__}: {str(exc)[:120]}"})
        return rows

    def outcomes(self, path: Path) -> list[dict[str, Any]] | None:
        """The scores beside a run's or study's replay (`run_outcomes`), read again only when
        its results.json changes."""
        results = path.parent / RESULTS
        try:
            mtime = results.stat().st_mtime if path.name == RUN_REPLAY else None
        except OSError:
            mtime = None
        if mtime is None:
            return None
        key = (results, mtime, "outcomes")
        with self._lock:
            if key in self._derived:
                return self._derived[key]
        value = run_outcomes(results)
        with self._lock:
            self._derived[key] = value
        return value

    def meta(self, rid: str) -> dict[str, Any]:
        replay = self.get(rid)
        return {
            "id": rid,
            **self._cached(replay, "provenance", lambda: provenance(replay)),
            "header": replay.header.to_dict(),
            "frame_chunks": [[r.t0, r.t1] for r in replay._frame_chunks],
            "keyframes": list(replay._keyframe_ticks),
        }

    def overview(self, rid: str) -> dict[str, Any]:
        """The timeline (phases, markers) and the event log, built once per replay."""
        replay = self.get(rid)

        def build() -> dict[str, Any]:
            chars = [c["id"] for c in replay.characters()]
            every = step_aside(replay.events(), self.seeking)
            events = [e for e in every if e.get("kind") not in QUIET_EVENTS]
            line = timeline(
                step_aside(replay.events(), self.seeking),
                replay.first_tick or 0,
                replay.last_tick or 0,
                chars,
            )
            return {**line, "events": events}

        return self._cached(replay, "overview", build)

    def frame_at(self, rid: str, tick: int) -> dict[str, Any]:
        """A keyframe frame for `tick` (what `Replay.frame_at` gives), from cached states."""
        replay = self.get(rid)
        first, last = replay.first_tick, replay.last_tick
        if first is None or not first <= tick <= last:
            raise ReplayError(
                codes.TICK_OUT_OF_RANGE, f"tick {tick} is outside the recorded ticks {first}-{last}"
            )
        starts = [r.t0 for r in replay._frame_chunks]
        base = starts[bisect.bisect_right(starts, tick) - 1]
        with self._lock:
            self._seeks_waiting += 1
        try:
            with self._seek_lock:
                state = self._state_at_start(replay, base, starts)
            frame = None
            for frame in replay.frames(base + 1, tick) if tick > base else ():
                state = apply_frame(state, frame)
            if frame is None:
                frame = next(replay.frames(tick, tick))
            return keyframe_frame(state, frame.get("events", []))
        finally:
            with self._lock:
                self._seeks_waiting -= 1

    def seeking(self) -> bool:
        """Whether a seek is being answered now (background work waits for it to finish)."""
        return self._seeks_waiting > 0

    def warm(self, rid: str) -> None:
        """Reach every frame-chunk start once (in the background), so later seeks are short."""
        replay = self.get(rid)
        starts = [r.t0 for r in replay._frame_chunks]
        for start in starts:
            if len(self._states) >= MAX_STATES:
                break
            while self.seeking():  # one core's worth of Python at a time: the seek first
                time.sleep(0.002)
            with self._seek_lock:
                self._state_at_start(replay, start, starts, fresh=False)

    def warm_in_background(self, rid: str) -> None:
        with self._lock:
            if rid in self._warming:
                return
            self._warming.add(rid)
        threading.Thread(target=self._warm_quietly, args=(rid,), daemon=True).start()

    def _warm_quietly(self, rid: str) -> None:
        try:
            self.warm(rid)
        except Exception:  # noqa: BLE001 - a damaged file: the seeks near it report it
            log.debug("warming replay %s stopped", rid, exc_info=True)

    def _state_at_start(
        self, replay: Replay, base: int, starts: list[int], fresh: bool = True
    ) -> Any:
        """The state at frame-chunk start `base`: a fresh copy the caller may change (None when
        `fresh` is False: the warm-up only wants it cached)."""
        key = (replay.path, base)
        if key in self._states:
            self._states.move_to_end(key)
            return pickle.loads(self._states[key]) if fresh else None
        kf = replay._keyframe_before(base)
        begin, state = None, None
        cached = [t for p, t in self._states if p == replay.path and t <= base]
        if cached and (kf is None or max(cached) >= kf.t0):
            begin = max(cached)
            state = pickle.loads(self._states[(replay.path, begin)])
        elif kf is not None:
            begin = kf.t0
            state = apply_frame(None, replay.read_chunk(kf)["frame"])
            state = copy_state(state)  # the cached chunk's keyframe must stay as stored
        if state is None:
            raise ReplayError(codes.NO_KEYFRAME, f"no keyframe at or before tick {base}")
        wanted = set(starts)
        for frame in replay.frames(begin + 1, base) if base > begin else ():
            state = apply_frame(state, frame)
            if frame["tick"] in wanted:
                self._keep_state(replay.path, frame["tick"], state)
        self._keep_state(replay.path, base, state)
        return state

    def _keep_state(self, path: Path, tick: int, state: Any) -> None:
        if (path, tick) not in self._states:
            self._states[(path, tick)] = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
            while len(self._states) > MAX_STATES:
                self._states.popitem(last=False)

    def frame_chunk(self, rid: str, n: int) -> tuple[bytes, int]:
        """Frame chunk `n` as `/frames/<n>` sends it: ``(gzipped JSON, length of the JSON)``
        (``{index, t0, t1, frames}``, patches undone, events put back); cached, so a chunk
        costs its decoding and encoding once. ReplayError `unknown_chunk` for a bad `n`."""
        replay = self.get(rid)
        chunks = replay._frame_chunks
        if not 0 <= n < len(chunks):
            raise ReplayError(codes.UNKNOWN_CHUNK, f"frame chunk {n} is not in 0-{len(chunks) - 1}")
        key = (replay.path, replay.path.stat().st_mtime, n)
        with self._lock:
            body = self._chunk_bodies.get(key)
            if body is not None:
                self._chunk_bodies.move_to_end(key)
                return body
        ref = chunks[n]
        frames = list(replay.frames(ref.t0, ref.t1))
        data = json.dumps(
            {"index": n, "t0": ref.t0, "t1": ref.t1, "frames": frames}, separators=(",", ":")
        ).encode()
        body = (gzip.compress(data, compresslevel=1), len(data))
        with self._lock:
            if key not in self._chunk_bodies:
                self._chunk_bodies[key] = body
                self._chunk_bytes += len(body[0])
                while self._chunk_bytes > MAX_CHUNK_BYTES:
                    _, (old, _) = self._chunk_bodies.popitem(last=False)
                    self._chunk_bytes -= len(old)
        return body

    def turns(self, rid: str) -> dict[str, Any]:
        """The timeline's model-turn markers, per configuration (the turns' text is left for
        `turn`): ``{"configurations": [{"config", "char", "markers": [...]}]}``."""
        replay = self.get(rid)

        def build() -> dict[str, Any]:
            return {"configurations": [
                {"config": c["config"], "char": c["char"],
                 "markers": [marker(t) for t in c["turns"]]}
                for c in replay.turns()
            ]}

        return self._cached(replay, "turns", build)

    def transcript(self, rid: str) -> dict[str, Any]:
        """Every model turn of the replay for the turn reader, without the prompts (one is read
        with `turn`), each with its outcome:
        ``{"configurations": [{"config", "char", "turns": [...]}]}``."""
        replay = self.get(rid)

        def build() -> dict[str, Any]:
            return {"configurations": [
                {"config": c["config"], "char": c["char"],
                 "turns": [readable(t) for t in c["turns"]]}
                for c in replay.turns()
            ]}

        return self._cached(replay, "transcript", build)

    def why(self, rid: str) -> dict[str, Any]:
        """Each character's why-summary (asiworld.evaluation.why): per tier what its
        expeditions cost, and the stalls found, each at its tick; built once per replay."""
        replay = self.get(rid)
        return self._cached(replay, "why", lambda: why_summaries(
            step_aside(replay.events(), self.seeking), replay.characters()))

    def turn(self, rid: str, char: int, number: int) -> dict[str, Any]:
        """One model turn in full; ReplayError `unknown_turn` when the replay has no such one."""
        replay = self.get(rid)
        for conf in replay.turns():
            if conf["char"] != char:
                continue
            for turn in conf["turns"]:
                if turn["turn"] == number:
                    return {"config": conf["config"], "char": char, **turn}
        raise ReplayError(codes.UNKNOWN_TURN, f"character {char} has no model turn {number} here")

    def series(self, rid: str) -> dict[str, Any]:
        """Per character, every SERIES_EVERY ticks: health, hunger, energy, coins (for charts)."""
        replay = self.get(rid)
        return self._cached(replay, "series", lambda: chart_series(replay, self.seeking))


RUN_REPLAY = "replay.asirep"  # what `asiworld run --out DIR` and `study run` write ...
RESULTS = "results.json"  # ... beside the evaluation's results


def run_outcomes(results: Path) -> list[dict[str, Any]] | None:
    """Each configuration's rank, score and the two tasks (`outfit`: the production task, `hero`:
    the exploration task) from a run's results.json, best first; None when it cannot be read
    (the card then shows none: a replay is worth listing without its scores)."""
    try:
        body = json.loads(results.read_text(encoding="utf-8"))
        rows = body["configurations"]
        out = [{"name": str(r["name"]), "rank": r.get("rank"), "score": r.get("score_shown"),
                "outfit": bool(r["measures"].get("outfit")),
                "hero": bool(r["measures"].get("hero"))} for r in rows]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return sorted(out, key=lambda r: (r["rank"] is None, r["rank"] or 0))


def provenance(replay: Replay) -> dict[str, Any]:
    h = replay.header
    first, last = replay.first_tick, replay.last_tick
    chars = replay.characters()
    configurations: dict[str, list[dict]] = {c.name: [] for c in h.configurations}
    for c in chars:
        configurations.setdefault(c["label"] or "unlabelled", []).append(c)
    return {
        "file": replay.path.name,
        "title": h.title or replay.path.stem,
        "seed": h.seed,
        "width": h.width,
        "height": h.height,
        "engine_version": h.engine_version,
        "content_hash": h.content_hash,
        "schema": h.schema,
        "created_at": h.created_at,
        "horizon": h.horizon,
        "first_tick": first,
        "last_tick": last,
        "minutes": round(((last or 0) - (first or 0)) / 60, 1),
        "complete": replay.complete,
        "size_bytes": replay.size_bytes,
        "characters": chars,
        "configurations": [{"name": k, "characters": v} for k, v in configurations.items()],
    }


def step_aside(items: Iterable[Any], busy: Callable[[], bool], every: int = 200) -> Iterator[Any]:
    """`items`, waiting before each `every`-th while `busy()` says a seek is being answered:
    building a long replay's timeline or chart series takes a second or two of Python, and a
    seek sharing the interpreter with them took several times its ~25 ms."""
    for i, item in enumerate(items):
        if i % every == 0:
            while busy():
                time.sleep(0.002)
        yield item


def chart_series(replay: Replay, busy: Callable[[], bool] = lambda: False) -> dict[str, Any]:
    if replay.first_tick is None:
        return {"every": SERIES_EVERY, "ticks": [], "characters": {}}
    current: dict[str, dict] = {}
    ticks: list[int] = []
    out: dict[str, dict[str, list]] = {}
    for frame in step_aside(replay.frames(), busy):
        body = frame.get("keyframe") or frame.get("deltas") or {}
        for key, ent in (body.get("entities") or {}).items():
            if ent.get("kind") == "character":
                current[str(key)] = ent
        for key in (frame.get("deltas") or {}).get("removed") or ():
            current.pop(str(key), None)
        tick = frame["tick"]
        if tick % SERIES_EVERY and tick != replay.last_tick:
            continue
        ticks.append(tick)
        for key, ent in current.items():
            row = out.setdefault(key, {f: [] for f in SERIES_FIELDS})
            missing = len(ticks) - 1 - len(row["health"])
            for f in SERIES_FIELDS:  # a character that joined late: nothing before its join
                row[f].extend([None] * missing)
                row[f].append(ent.get(f))
        for row in out.values():
            for f in SERIES_FIELDS:
                row[f].extend([None] * (len(ticks) - len(row[f])))
    return {"every": SERIES_EVERY, "ticks": ticks, "characters": out}
