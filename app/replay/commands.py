"""`asiworld replay info | verify | export`."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from asiworld import arguments as checked
from asiworld.engine import codes

from .apply import apply_frame
from .format import ReplayError
from .library import replay_path
from .reader import Replay
from .render import render_state
from .verify import provenance_notes, verify_replay

TICKS_PER_MINUTE = 60
MAX_GIF_FRAMES = 1200


def _damaged(path: object, exc: Exception) -> int:
    """A file whose bytes pass the format's checks but break what reads them: a clean error,
    never a traceback (a replay file is untrusted input)."""
    return checked.refuse(codes.DAMAGED_REPLAY, f"{path} holds data this reader cannot use "
                          f"({type(exc).__name__}: {str(exc)[:160]})")


def _fail(exc: ReplayError) -> int:
    print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
    return 2


def describe(replay: Replay) -> dict[str, Any]:
    """What `replay info` prints, as data (the server's replay list uses the same)."""
    header = replay.header
    counts = dict(replay.summary.get("counts", {}))
    if not replay.complete or not counts:
        counts = {
            "frames": sum(1 for _ in replay.frames()),
            "inputs": sum(1 for _ in replay.inputs()),
            "events": sum(1 for _ in replay.events()),
            "hashes": len(replay.hashes()),
            "keyframes": sum(1 for r in replay.index if r.kind == "K"),
            "snapshots": len(replay.world_snapshots()),
        }
    first, last = replay.first_tick, replay.last_tick
    ticks = (last - first) if first is not None else 0
    minutes = ticks / TICKS_PER_MINUTE
    joined = replay.characters()
    # Older recorders (the headless one among them) wrote each configuration with an empty
    # list: the characters that joined under its label are the ones it played.
    played: dict[str, list[int]] = {}
    for char in joined:
        played.setdefault(char["label"], []).append(char["id"])
    return {
        "file": str(replay.path),
        "schema": replay.schema,
        "engine_version": header.engine_version,
        "content_hash": header.content_hash,
        "seed": header.seed,
        "world": f"{header.width}x{header.height}",
        "created_at": header.created_at,
        "horizon": header.horizon,
        "configurations": [
            {"name": c.name, "characters": c.characters or played.get(c.name, [])}
            for c in header.configurations
        ],
        "characters": [{k: c[k] for k in ("id", "name", "label")} for c in joined],
        "first_tick": first,
        "last_tick": last,
        "minutes": round(minutes, 2),
        "counts": counts,
        "chunks": len(replay.index),
        "world_snapshots": {
            "every": header.snapshot_every,
            "count": len(replay.world_snapshots()),
            "bytes": sum(r.size for r in replay.world_snapshots()),
        },
        "size_bytes": replay.size_bytes,
        "bytes_per_minute": round(replay.size_bytes / minutes) if minutes else None,
        "complete": replay.complete,
    }


def cmd_info(args: argparse.Namespace) -> int:
    try:
        with Replay.open(args.file) as replay:
            data = describe(replay)
            if args.check:
                data["problems"] = [f"{p.code}: {p.message}" for p in replay.check()]
    except ReplayError as exc:
        return _fail(exc)
    except Exception as exc:
        return _damaged(args.file, exc)
    if args.json:
        print(json.dumps(data, indent=2))
        return 1 if data.get("problems") else 0
    print(f"{data['file']}  (schema {data['schema']}, engine {data['engine_version']})")
    print(f"  seed {data['seed']}, world {data['world']}, created {data['created_at']}")
    print(f"  content {data['content_hash'] or '-'}, horizon {data['horizon']} ticks")
    for conf in data["configurations"]:
        print(f"  configuration {conf['name']}: characters {conf['characters']}")
    if data["characters"]:
        joined = ", ".join(f"{c['id']} {c['name']} ({c['label']})" for c in data["characters"])
        print(f"  joined: {joined}")
    print(
        f"  ticks {data['first_tick']}-{data['last_tick']} ({data['minutes']} simulation minutes)"
    )
    print("  " + ", ".join(f"{v} {k}" for k, v in data["counts"].items()))
    size = data["size_bytes"]
    per_min = data["bytes_per_minute"]
    print(
        f"  {size:,} bytes in {data['chunks']} chunks"
        + (f", {per_min:,} bytes per simulation minute" if per_min else "")
    )
    snaps = data["world_snapshots"]
    if snaps["count"]:
        print(
            f"  {snaps['count']} world snapshots every {snaps['every']} ticks "
            f"({snaps['bytes']:,} bytes): a point of view or fork starts from the nearest"
        )
    else:
        print("  no world snapshots: a point of view or fork re-simulates from the seed")
    if not data["complete"]:
        print("  no index: the recording was cut off; read up to its last complete chunk")
    for problem in data.get("problems", []):
        print(f"  damaged: {problem}")
    return 1 if data.get("problems") else 0


def cmd_verify(args: argparse.Namespace) -> int:
    try:
        with Replay.open(args.file) as replay:
            damaged = replay.integrity()  # a flipped byte is refused before any re-simulation
            if damaged:
                return _fail(damaged[0])
            try:
                for note in provenance_notes(replay.header):
                    print(f"note: {note}")
                verdict = verify_replay(replay, until=args.until)
            except ModuleNotFoundError as exc:
                return checked.refuse(codes.ENGINE_MISSING, f"cannot import the engine ({exc})")
    except ReplayError as exc:
        return _fail(exc)
    except Exception as exc:
        return _damaged(args.file, exc)
    if verdict.ok:
        print(f"ok: {verdict.checked} state hashes match up to tick {verdict.last_tick}")
        return 0
    print(f"mismatch: {verdict.code}: {verdict.message}")
    if verdict.mismatch_tick is not None:
        print(f"first mismatching tick: {verdict.mismatch_tick}")
    return 1


def cmd_export(args: argparse.Namespace) -> int:
    if not args.png and not args.gif and not args.html:
        return checked.refuse(codes.BAD_ARGUMENT,
                              "give --png OUT (with --at), --gif OUT or --html OUT")
    try:
        if args.file.is_dir():
            args.file = replay_path(args.file)
        with Replay.open(args.file) as replay:
            names = replay.header.character_names()
            if args.png:
                if args.at is None:
                    return checked.refuse(codes.BAD_ARGUMENT, "--png needs --at TICK")
                state = replay.state_at(args.at)
                area = _area(state, args)
                image = render_state(
                    state, area=area, scale=args.scale, names=names, focus=args.focus
                )
                image.save(args.png)
                print(f"wrote {args.png} (tick {args.at})")
            if args.gif:
                return _export_gif(replay, args, names)
    except ReplayError as exc:
        return _fail(exc)
    except OSError as exc:
        return checked.refuse(codes.CANNOT_WRITE, str(exc))
    except Exception as exc:
        return _damaged(args.file, exc)
    return 0


def _area(state: dict, args: argparse.Namespace) -> str:
    """The area to draw: --area, else the focused character's, else the surface."""
    area = args.area
    if area is None and args.focus is not None:
        ent = state["entities"].get(str(args.focus))
        if ent is None:
            raise ReplayError(codes.UNKNOWN_CHARACTER, f"no character {args.focus} at this tick")
        area = ent.get("area", 0)
    area = "0" if area is None else str(area)
    if area not in state["areas"]:
        known = ", ".join(sorted(state["areas"]))
        raise ReplayError(codes.UNKNOWN_AREA,
                          f"area {area} is not in the world at this tick ({known})")
    return area


def _export_gif(replay: Replay, args: argparse.Namespace, names: dict[int, str]) -> int:
    start = replay.first_tick if args.start is None else args.start
    end = replay.last_tick if args.end is None else args.end
    every = max(1, args.every)
    if end < start:
        raise ReplayError(codes.BAD_ARGUMENT, f"--to {end} comes before --from {start}")
    count = (end - start) // every + 1
    if count > MAX_GIF_FRAMES:
        raise ReplayError(
            codes.CLIP_TOO_LONG,
            f"{count} GIF frames is more than {MAX_GIF_FRAMES}; shorten the range or raise --every",
        )
    state = replay.state_at(start)
    area = _area(state, args)

    def draw() -> Any:
        return render_state(state, area=area, scale=args.scale, names=names, focus=args.focus)

    images = [draw()]
    for frame in replay.frames(start + 1, end):
        state = apply_frame(state, frame)
        if (frame["tick"] - start) % every == 0 and area in state["areas"]:
            images.append(draw())
    duration = max(20, round(1000 / max(args.fps, 0.1)))
    images[0].save(
        args.gif, save_all=True, append_images=images[1:], duration=duration, loop=0, optimize=False
    )
    print(f"wrote {args.gif} ({len(images)} frames, ticks {start}-{end})")
    return 0
