"""Assessment that follows an event stream as it grows.

`LiveAssessment` is the one place events are turned into results: a headless run feeds it the
whole stream at the end, a live server feeds it every tick's events and asks for results when a
page wants them, and a replay feeds it the recorded stream. All three get the same numbers.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from asiworld.evaluation.achievements import AchievementRecord, Thresholds, shipped_thresholds
from asiworld.evaluation.measures import Measures, with_duration
from asiworld.evaluation.profile import Daylight, Profile
from asiworld.evaluation.score import RawMeasures, contributions, score_cohort

Event = dict[str, Any]
SCHEMA = "asiworld-evaluation/1"


class CharacterAssessment:
    """Everything assessed about one character (one configuration in an evaluation)."""

    def __init__(self, cid: int, name: str, label: str, thresholds: Thresholds,
                 daylight: Daylight | None = None) -> None:
        self.id, self.name, self.label = cid, name, label
        self.achievements = AchievementRecord(thresholds)
        self.measures = Measures(day_ticks=thresholds.day_ticks)
        self.profile = Profile(daylight)

    def feed(self, ev: Event) -> None:
        self.achievements.feed(ev)
        self.measures.feed(ev)
        self.profile.feed(ev)

    def raw(self) -> RawMeasures:
        m = self.measures
        return RawMeasures(
            name=self.name,
            outfit=m.outfit,
            depth=m.depth,
            hero=m.hero,
            kills=m.kills,
            bosses=m.bosses,
            crafts=m.crafts,
            coins=m.coins,
            trial=self.achievements.trial,
            downs=m.downs,
        )


class LiveAssessment:
    """Consumes events incrementally; `results()` can be called at any time.

    Thread-safe: a server's runner thread may `feed` every tick's events (the pipeline's
    "assessment" observer, app/server/assessment.py) while request threads call `results`.
    """

    def __init__(
        self,
        characters: Iterable[dict[str, Any]] = (),
        thresholds: Thresholds | None = None,
    ) -> None:
        self.thresholds = thresholds or shipped_thresholds()
        self._lock = threading.Lock()
        self._start(characters)

    def _start(self, characters: Iterable[dict[str, Any]]) -> None:
        self.characters: dict[int, CharacterAssessment] = {}
        self.daylight = Daylight()  # the world's time of day, for the knockdowns' profile
        self.world_incidents: list[Event] = []  # incidents that name no known character
        self.tick = 0
        self.events_seen = 0
        for c in characters:
            self._character(int(c["id"]), c.get("name"), c.get("label"))

    def restart(self, characters: Iterable[dict[str, Any]], history: Iterable[Event] = ()) -> None:
        """Assess another world from now on (a fork replaced the live one): its characters, and
        the events that led to it, forgetting everything fed before."""
        with self._lock:
            self._start(characters)
            self._feed(history)

    def _character(self, cid: int, name: Any = None, label: Any = None) -> CharacterAssessment:
        found = self.characters.get(cid)
        if found is None:
            found = CharacterAssessment(
                cid, str(name or f"char{cid}"), str(label or ""), self.thresholds, self.daylight
            )
            self.characters[cid] = found
        return found

    def feed(self, events: Iterable[Event]) -> None:
        with self._lock:
            self._feed(events)

    def _feed(self, events: Iterable[Event]) -> None:
        for ev in events:
            self.events_seen += 1
            self.tick = max(self.tick, int(ev.get("tick", 0)))
            cid = ev.get("char")
            self.daylight.feed(ev)
            if ev.get("kind") == "joined" and cid is not None:
                known = self._character(int(cid), ev.get("name"), ev.get("label"))
                # A joined event names the character better than a placeholder does.
                if ev.get("name") and known.name == f"char{cid}":
                    known.name = str(ev["name"])
                if ev.get("label") and not known.label:
                    known.label = str(ev["label"])
            if cid is None:
                if ev.get("kind") == "incident":
                    self.world_incidents.append(dict(ev))
                continue
            self._character(int(cid)).feed(ev)

    @staticmethod
    def _keep_names_unique(people: list[CharacterAssessment]) -> None:
        # Rows are matched by name (ranking, comparing runs); two characters sharing a name
        # get their id appended so neither hides the other.
        seen: dict[str, int] = {}
        for c in people:
            seen[c.name] = seen.get(c.name, 0) + 1
        for c in people:
            if seen[c.name] > 1:
                c.name = f"{c.name}#{c.id}"

    def advance(self, tick: int) -> None:
        """The clock reached `tick` with nothing to report (a minute's end with no event on
        it): what depends on time alone, a survival day, is assessed up to there."""
        with self._lock:
            self.tick = max(self.tick, int(tick))

    def results(self, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        with self._lock:
            return self._results(meta)

    def standing(self) -> dict[int, dict[str, Any]]:
        """Each character's score, Trial stage and tasks now, by id: the part of `results()`
        that progress keeps of every minute (a minute's full results, its behaviour profile
        over the whole run above all, cost most of a run's assessment)."""
        with self._lock:
            people, raws, ranking = self._scored()
            return {c.id: {"score": ranking[c.name].score, "trial": c.achievements.trial,
                           "outfit": int(bool(c.measures.outfit)),
                           "hero": int(bool(c.measures.hero))}
                    for c in people}

    def _scored(self) -> tuple[list[CharacterAssessment], dict[int, RawMeasures],
                               dict[str, Any]]:
        people = list(self.characters.values())
        self._keep_names_unique(people)
        for c in people:  # the clock moved on since a character's own last event
            c.achievements.advance(self.tick)
        raws = {c.id: c.raw() for c in people}
        ranking = {s.name: s for s in score_cohort(list(raws.values()))}
        return people, raws, ranking

    def _results(self, meta: dict[str, Any] | None) -> dict[str, Any]:
        people, raws, ranking = self._scored()
        max_bosses = max((r.bosses for r in raws.values()), default=0)
        max_crafts = max((r.crafts for r in raws.values()), default=0)
        configurations = []
        for c in people:
            scored = ranking[c.name]
            m = c.measures
            measures = m.to_dict(self.tick)
            measures["trial"] = c.achievements.trial
            measures["score"] = scored.score
            configurations.append(
                {
                    "id": c.id,
                    "name": c.name,
                    "label": c.label,
                    "rank": scored.rank,
                    "score": scored.score,
                    "score_shown": scored.shown,
                    "contributions": contributions(raws[c.id], max_bosses, max_crafts),
                    "entered": c.measures.presence.entered,
                    "measures": measures,
                    "achievements": c.achievements.to_dict(),
                    "actions": dict(m.actions),
                    "dungeons": m.dungeon_performance(),
                    "incidents": m.incident_list(self.tick),
                    "profile": c.profile.to_dict(m.presence.entered, self.tick, m.expeditions),
                }
            )
        configurations.sort(key=lambda row: row["rank"])
        return {
            "schema": SCHEMA,
            "meta": dict(meta or {}),
            "tick": self.tick,
            "events": self.events_seen,
            "cohort": {"max_bosses": max_bosses, "max_crafts": max_crafts},
            "configurations": configurations,
            "world_incidents": [with_duration(i, self.tick) for i in self.world_incidents],
        }
