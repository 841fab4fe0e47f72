"""Repeated evaluations: the same cohort in several fresh worlds (E1, E2, ...), one seed each,
run one after another, on local processes, or on a Ray cluster; each run writes its own
reports into DIR/E<n> and the comparison (cells "E1 / E2") goes into DIR.

Runs are independent and deterministic, so where a run executes never changes its results:
`--workers 2` gives exactly what two sequential runs give.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from asiworld.engine import codes
from asiworld.engine.errors import CodedError
from asiworld.evaluation import compare_runs
from asiworld.evaluation.figure_options import DEFAULT

from .run import Run, RunConfig, write_outputs


class RayUnavailable(CodedError, RuntimeError):
    """`--ray` was asked for but the ray package is not installed here."""

    def __init__(self, message: str) -> None:
        super().__init__(codes.RAY_UNAVAILABLE, message)


@dataclass(frozen=True)
class RunSpec:
    """One evaluation of a repeated set: its name (E1...) and its configuration."""

    name: str
    config: RunConfig


def plan_runs(base: RunConfig, seeds: list[int], out: Path | None) -> list[RunSpec]:
    """E1..En, one per seed, each writing into out/E<n> when there is an out folder."""
    specs = []
    for i, seed in enumerate(seeds, start=1):
        name = f"E{i}"
        run_out = out / name if out is not None else None
        specs.append(RunSpec(name, replace(base, seed=seed, out=run_out, progress=False)))
    return specs


def execute(spec: RunSpec, write: bool = True) -> dict[str, Any]:
    """Run one evaluation. With `write` the reports go to its out folder here; without it the
    events come back with the results, for a caller on another machine to write."""
    run = Run(spec.config)
    results = run.run()
    results["run"] = spec.name
    if write and spec.config.out is not None:
        write_outputs(spec.config.out, run, results, figures=spec.config.figures)
        return results
    return {**results, "_events": run.events, "_characters": run.characters}


def run_many(
    specs: list[RunSpec],
    workers: int = 1,
    ray_address: str | None = None,
    say: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """Every spec's results, in the order given, wherever they ran."""
    say = say or (lambda line: print(line, file=sys.stderr))
    started = time.perf_counter()
    if ray_address is not None:
        results = _on_ray(specs, ray_address)
    elif workers > 1 and len(specs) > 1:
        with ProcessPoolExecutor(max_workers=min(workers, len(specs))) as pool:
            results = list(pool.map(execute, specs))
    else:
        results = []
        for spec in specs:
            results.append(execute(spec))
            say(f"{spec.name}: seed {spec.config.seed} done ({results[-1]['wall_seconds']} s)")
    if ray_address is not None or (workers > 1 and len(specs) > 1):
        for spec, res in zip(specs, results, strict=True):
            say(f"{spec.name}: seed {spec.config.seed} done ({res['wall_seconds']} s)")
    say(f"{len(specs)} runs in {time.perf_counter() - started:.1f} s")
    return results


def _on_ray(specs: list[RunSpec], address: str) -> list[dict[str, Any]]:
    try:
        import ray  # only when asked for: ray is not a dependency of ASIWorld
    except ImportError:
        raise RayUnavailable(
            "--ray needs the ray package, which is not installed here (pip install ray)"
        ) from None
    ray.init(address=address, ignore_reinit_error=True)
    remote = ray.remote(execute)
    # Workers may not share this machine's disk: they send events back and the reports are
    # written here (so no replay file: that is recorded where the run happens).
    away = [replace(spec, config=replace(spec.config, out=None)) for spec in specs]
    futures = [remote.remote(spec, False) for spec in away]
    results = []
    for spec, res in zip(specs, ray.get(futures), strict=True):
        results.append(_write_returned(spec, res))
    return results


def _write_returned(spec: RunSpec, res: dict[str, Any]) -> dict[str, Any]:
    events = res.pop("_events", [])
    res.pop("_characters", None)
    if spec.config.out is not None:
        write_outputs(spec.config.out, _Finished(events), res, figures=spec.config.figures)
    return res


class _Finished:
    """What write_outputs reads from a Run, for a run that happened elsewhere."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events


def compare(out: Path, results: list[dict[str, Any]], figures: Any = None) -> None:
    """The comparison of all runs (cells "E1 / E2 / ...") in `out` (`figures`: FigureOptions,
    None for the default)."""
    compare_runs(out, results, figures=figures or DEFAULT)
