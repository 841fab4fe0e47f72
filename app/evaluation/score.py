"""The composite score of world-rules.md, normalised by the cohort's maxima.

    Score = 30·Hero + 10·Outfit + 15·Depth/3 + 15·Bosses/max(Bosses) + 25·Crafts/max(Crafts)
            + 5·Trial/8

The weights, and how each component is normalised, are content (app/engine/content/score.toml,
checked when content loads); T6 is written from the same list. A ratio whose cohort maximum is
zero counts 0. Configurations are ranked by the unrounded score;
exact ties keep name order, so the ranking is stable. Scores are shown with one decimal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from asiworld.engine.content import ScoreWeights, load_content


def _score_content() -> ScoreWeights:
    weights = load_content().score
    assert weights is not None  # load_content builds it or raises ContentError
    return weights


SCORE = _score_content()
COMPONENTS = SCORE.components  # in the paper's order j
WEIGHTS = SCORE.weights()
MAX_DEPTH = SCORE.max_depth
MAX_TRIAL = SCORE.max_trial


@dataclass(frozen=True)
class RawMeasures:
    """The measures the score and the main table need, for one configuration."""

    name: str
    outfit: bool
    depth: int
    hero: bool
    kills: int
    bosses: int
    crafts: int
    coins: int
    trial: int
    downs: int


@dataclass(frozen=True)
class Scored:
    name: str
    score: float  # unrounded
    rank: int

    @property
    def shown(self) -> str:
        return show(self.score)


def show(score: float) -> str:
    return f"{score:.1f}"


def _ratio(value: float, maximum: float) -> float:
    return value / maximum if maximum > 0 else 0.0


def contributions(row: RawMeasures, max_bosses: int, max_crafts: int) -> dict[str, float]:
    """Each component's points (weight times its normalised value), in the order j."""
    value = {
        "hero": 1.0 if row.hero else 0.0,
        "outfit": 1.0 if row.outfit else 0.0,
        "depth": row.depth / MAX_DEPTH,
        "bosses": _ratio(row.bosses, max_bosses),
        "crafts": _ratio(row.crafts, max_crafts),
        "trial": row.trial / MAX_TRIAL,
    }
    return {c.key: c.weight * value[c.key] for c in COMPONENTS}


def composite(row: RawMeasures, max_bosses: int, max_crafts: int) -> float:
    """One configuration's score given the cohort maxima of Bosses and Crafts: the sum of its
    contributions, added left to right as Equation (1) is written."""
    return sum(contributions(row, max_bosses, max_crafts).values())


def score_cohort(rows: Sequence[RawMeasures]) -> list[Scored]:
    """Scores and ranks for every configuration of one evaluation, best first."""
    max_bosses = max((r.bosses for r in rows), default=0)
    max_crafts = max((r.crafts for r in rows), default=0)
    scored = [(composite(r, max_bosses, max_crafts), r.name) for r in rows]
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [Scored(name=name, score=value, rank=i + 1) for i, (value, name) in enumerate(scored)]
