"""`asiworld study run --ray ADDRESS`: one world per seed as a Ray task.

Each task plays one seed's world exactly as the sequential path does (`StudyRun`, then
`write_study`) in a temporary folder of the worker, and sends back its results and every file
it wrote; the driver puts them in DIR/E1, DIR/E2, ... (DIR itself for one seed) and writes the
comparison, as `run_study` does. A worker need not share the driver's disk. An interrupted seed's
folder (its store and transcripts) goes to the worker with the task, which resumes it there.

The model endpoints are called from the workers: on a cluster, `model_url` must be reachable
from every node (127.0.0.1 only works with `--ray local`).

ADDRESS: `local` starts a Ray runtime on this machine (one CPU per core), `auto` joins the
cluster this machine belongs to (`ray start`), anything else is given to `ray.init(address=)`
(`ray://HOST:10001`, `HOST:6379`). A process that has already started Ray (a test's
`ray.init(num_cpus=2)`) uses the runtime it has.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from asiworld.engine import codes
from asiworld.evaluation import compare_runs
from asiworld.evaluation.figure_options import DEFAULT

from .resume import saved_study
from .run import StudyRun, clear_outputs, seed_folders, write_study
from .spec import Study, StudyError


def play_seed(study: Study, text: str, where: str, seed: int, name: str | None,
              saved: dict[str, bytes] | None = None,
              figures: Any = None) -> tuple[dict[str, Any], dict[str, bytes]]:
    """One seed's world in a folder of this process's own (a Ray task): its results and the
    files it wrote, by path inside the folder. `saved`: an interrupted folder to resume."""
    with tempfile.TemporaryDirectory(prefix="asiworld-study-") as tmp:
        folder = Path(tmp)
        for path, data in (saved or {}).items():
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_bytes(data)
        run = StudyRun(study, text, folder, seed, where, resume=bool(saved))
        results = run.run(say=lambda line: None)
        if name is not None:
            results["run"] = name
        write_study(folder, run, results, figures=figures)
        files = {str(p.relative_to(folder)): p.read_bytes()
                 for p in sorted(folder.rglob("*")) if p.is_file()}
    return results, files


def start_ray(address: str) -> Any:
    """The ray module, connected (see the module docstring for ADDRESS)."""
    try:
        import ray
    except ImportError:
        raise StudyError(
            codes.RAY_UNAVAILABLE,
            "--ray needs the ray package, which is not installed here "
            "(pip install 'asiworld[ray]')",
        ) from None
    if ray.is_initialized():
        return ray
    try:
        if address == "local":
            ray.init(num_cpus=os.cpu_count() or 1, include_dashboard=False,
                     log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise StudyError(codes.RAY_UNREACHABLE,
                         f"cannot start or reach Ray at {address!r}: {exc}") from None
    return ray


def run_on_ray(study: Study, text: str, out: Path, address: str, where: str = "study.toml",
               say: Any = None, resume: bool = False,
               figures: Any = None) -> list[dict[str, Any]]:
    """`run_study`'s results, each seed's world played as a Ray task."""
    say = say or (lambda line: print(line, file=sys.stderr))
    ray = start_ray(address)
    many = len(study.world.seed_list()) > 1
    task = ray.remote(num_cpus=1, max_retries=0)(play_seed)
    results: list[dict[str, Any] | None] = []
    pending = {}
    for i, (seed, folder) in enumerate(seed_folders(study, out), start=1):
        if resume and many and (folder / "results.json").is_file():
            say(f"E{i}: seed {seed} was done before the interruption; its results are kept")
            results.append(json.loads((folder / "results.json").read_text(encoding="utf-8")))
            continue
        saved = None
        if resume and saved_study(folder) is not None:
            saved = {str(p.relative_to(folder)): p.read_bytes()
                     for p in sorted(folder.rglob("*")) if p.is_file()}
            say(f"{folder}: interrupted; its Ray task resumes it")
        ref = task.remote(study, text, where, seed, f"E{i}" if many else None, saved, figures)
        pending[len(results)] = (ref, folder, seed)
        results.append(None)
    say(f"{len(pending)} worlds sent to Ray ({address})")
    for index, (ref, folder, seed) in pending.items():
        res, files = ray.get(ref)
        if many:
            clear_outputs(folder)
        else:
            clear_outputs(out)
        for path, data in files.items():
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_bytes(data)
        say(f"{folder}: seed {seed} done ({res['wall_seconds']} s on its worker)")
        results[index] = res
    done = [r for r in results if r is not None]
    if many:
        compare_runs(out, done, figures=figures or DEFAULT)
    return done
