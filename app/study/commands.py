"""`asiworld study new|check|run`."""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from asiworld.agents.clients.transcript import RequestMissing, read_transcript, rebuild
from asiworld.engine import codes
from asiworld.evaluation import figure_options

from .demo import demo_text, local_text
from .estimate import estimate, report
from .fanout import run_on_ray
from .resume import STORE_NAME
from .run import OUTPUTS, check_resumable, clear_outputs, run_study
from .seats import check_endpoints
from .spec import StudyError, example_text, load_study

if TYPE_CHECKING:
    from .spec import Study


def fail(code: str, message: str) -> int:
    print(f"error: {code}: {message}", file=sys.stderr)
    return 2


def cmd_new(args: argparse.Namespace) -> int:
    if args.file.exists() and not args.force:
        return fail(codes.FILE_EXISTS, f"{args.file} exists; give another name or --force")
    try:
        text = demo_text() if args.demo else local_text() if args.local_model else example_text()
        args.file.write_text(text, encoding="utf-8")
    except OSError as exc:
        return fail(codes.CANNOT_WRITE, f"cannot write {args.file}: {exc.strerror or exc}")
    print(f"wrote {args.file}; check it with: asiworld study check {args.file}",
          file=sys.stderr)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    try:
        study, _ = load_study(args.file, imports=False)  # checking a file runs none of its code
    except StudyError as exc:
        return fail(exc.code, exc.message)
    kinds = ", ".join(f"{c.name} ({c.kind})" for c in study.configurations)
    print(f"{args.file}: {len(study.configurations)} configurations: {kinds}; "
          f"{study.world.minutes} minutes; {study.clock.describe()}")
    return 0


def earlier_study(out: Path, force: bool = False) -> list[str]:
    """What an earlier study left in `out` (to replace, with `force`); StudyError `bad_out` or
    `out_in_use` (without `force`) when `out` cannot take a new study."""
    if out.exists() and not out.is_dir():
        raise StudyError(codes.BAD_OUT, f"{out} exists and is not a folder")
    _, earlier = folder_state(out, many=False)
    if earlier and not force:
        # Transcripts are appended to (a resume's rule): a new study must not add to old ones.
        raise StudyError(codes.OUT_IN_USE, f"{out} holds an earlier study ({', '.join(earlier)}); "
                         "give an empty folder, or --force to replace it")
    return earlier


def resumes(study: Study, text: str, out: Path, many: bool = False,
            remedy: str = "give --force to replace it") -> bool:
    """Whether `out` holds this study, interrupted (so it is resumed, not started); StudyError
    `resume_mismatch` when it holds another study's (`remedy`: how the command at hand starts a
    new one there). `study run` and `serve --study` decide so."""
    if folder_state(out, many)[0] != "interrupted":
        return False
    check_resumable(study, text, out, remedy)
    return True


def cmd_run(args: argparse.Namespace) -> int:
    import json


    try:
        study, text = load_study(args.file)
    except StudyError as exc:
        return fail(exc.code, exc.message)
    if args.port is not None:
        study = study.model_copy(update={"serve": study.serve.model_copy(
            update={"port": args.port})})
    if args.seeds is not None:  # the command line's seeds win over the file's
        world = study.world.model_copy(update={"seed": None, "seeds": args.seeds})
        study = study.model_copy(update={"world": world})
    if args.out.exists() and not args.out.is_dir():
        return fail(codes.BAD_OUT, f"{args.out} exists and is not a folder")
    if args.ray is None:  # on Ray the workers call the models: the check is theirs to make
        try:
            check_endpoints(study)  # before anything is written
        except StudyError as exc:
            return fail(exc.code, exc.message)
    many = len(study.world.seed_list()) > 1
    state, found = folder_state(args.out, many)
    resume = False
    try:
        resume = not args.force and resumes(study, text, args.out, many)
    except StudyError as exc:
        return fail(exc.code, exc.message)
    if args.force:
        clear_outputs(args.out)
    elif resume:
        print(f"{args.out} holds this study, interrupted: resuming it (--force starts it again)",
              file=sys.stderr)
    elif state != "empty":
        # Transcripts are appended to (a resume's rule): a new study must not add to old ones.
        why = "a finished study" if state == "done" else "an earlier study"
        return fail(codes.OUT_IN_USE, f"{args.out} holds {why} ({', '.join(found)}); "
                    "give an empty folder, or --force to replace it")
    figures = figure_options.from_args(args)
    try:
        with stopped_by_sigterm():
            if args.ray is not None:
                results = run_on_ray(study, text, args.out, args.ray, where=str(args.file),
                                     resume=resume, figures=figures)
            else:
                results = run_study(study, text, args.out, where=str(args.file), resume=resume,
                                    figures=figures, progress=not args.quiet)
    except StudyError as exc:
        return fail(exc.code, exc.message)
    except (KeyboardInterrupt, Terminated) as exc:
        # Everything the study started has been stopped on the way out (its figure workers,
        # its program host, its clock); what it saved lets the same command resume it.
        how = "SIGTERM" if isinstance(exc, Terminated) else "Ctrl-C"
        print(f"stopped by {how}: run the same command again to resume the study in "
              f"{args.out}", file=sys.stderr)
        return 143 if isinstance(exc, Terminated) else 130
    summary = [{k: r.get(k) for k in ("seed", "minutes", "ticks", "wall_seconds", "state_hash")}
               for r in results]
    decisions = ", decisions/" if (Path(args.out) / "decisions").is_dir() else ""  # outside seats'
    where = f"{args.out}/E1..E{len(results)} and the comparison in {args.out}" if many \
        else f"{args.out}/results.json, report.md, replay.asirep, transcripts/{decisions}"
    print(f"wrote {where}", file=sys.stderr)
    print(json.dumps(summary[0] if len(summary) == 1 else summary, indent=2))
    return 0


def cmd_turn(args: argparse.Namespace) -> int:
    import json


    folder = args.folder / "transcripts"
    path = folder / f"{args.name}.jsonl"
    if not args.folder.is_dir():
        return fail(codes.FOLDER_MISSING, f"no study folder at {args.folder}")
    if not path.is_file():
        names = sorted(p.stem for p in folder.glob("*.jsonl")) if folder.is_dir() else []
        hint = f"; model configurations: {', '.join(names)}" if names else \
            " (it holds no transcripts: a study with several seeds keeps them in E1, E2, ...)"
        return fail(codes.UNKNOWN_CONFIGURATION, f"{args.folder} has no transcript of {args.name!r}"
                    + hint)
    try:
        lines = read_transcript(path)
    except ValueError as exc:
        return fail(codes.BAD_TRANSCRIPT, f"{path} is not a transcript: {exc}")
    line = next((row for row in lines if row.get("call") == args.call), None)
    if line is None:
        last = max((int(row.get("call") or 0) for row in lines), default=0)
        return fail(codes.UNKNOWN_CALL, f"{args.name} made calls 1..{last}; there is no call "
                    f"{args.call}" if last else f"{args.name} made no model call")
    try:
        body = rebuild(folder, line)
    except RequestMissing as exc:
        return fail(codes.REQUEST_MISSING, str(exc))
    if args.pretty:
        print(json.dumps(json.loads(body), indent=2, ensure_ascii=False))
    else:
        sys.stdout.buffer.write(body + b"\n")
        sys.stdout.flush()
    if args.answer:
        shown = {k: line.get(k) for k in ("reply", "tool_calls", "content", "text_action",
                                          "results", "error", "prompt_tokens",
                                          "completion_tokens", "tick_sent", "tick_answered")}
        print(json.dumps(shown, indent=2, ensure_ascii=False), file=sys.stderr)
    return 0


def cmd_estimate(args: argparse.Namespace) -> int:
    try:
        study, _ = load_study(args.file)
    except StudyError as exc:
        return fail(exc.code, exc.message)
    if args.seeds is not None:
        world = study.world.model_copy(update={"seed": None, "seeds": args.seeds})
        study = study.model_copy(update={"world": world})
    print(report(estimate(study), args.file))
    return 0


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that every `finally` of the study runs (a
    process killed by the default handler left its figure workers behind)."""


@contextlib.contextmanager
def stopped_by_sigterm() -> Iterator[None]:
    import signal

    def stop(signum: int, frame: object) -> None:
        raise Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread (a test calling main() from one): as it was
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def folder_state(out: Path, many: bool) -> tuple[str, list[str]]:
    """What --out holds: "empty" (nothing a study writes), "done" (a finished study),
    "interrupted" (a study of this shape that stopped before its end) or "earlier" (anything
    else a study writes: another shape, or an older version's); and the names found."""
    if not out.is_dir():
        return "empty", []
    found = sorted(p.name for p in out.iterdir()
                   if p.name in OUTPUTS or (p.is_dir() and re.fullmatch(r"E\d+", p.name)))
    if not found:
        return "empty", []
    finished = "comparison.json" if many else "results.json"
    if finished in found:
        return "done", found
    runs = [name for name in found if name.startswith("E")]
    if many and runs and STORE_NAME not in found:
        return "interrupted", found
    if not many and not runs and STORE_NAME in found:
        return "interrupted", found
    return "earlier", found
