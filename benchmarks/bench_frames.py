"""What a spectator frame costs per tick: bytes on the wire and time to build and encode it.

For each count of built-in characters (default 9, 100 and 1,000 on a 256-tile map, spread over
it as `asiworld bench engine --spread` does), the world runs --ticks ticks after a warm-up and
each tick's frame is measured: its build (FrameBuilder.frame, inside the pipeline's tick), its
wire form (WireFrames: an entity seen before as a patch of its changed fields; --whole for the
frame as built), its Socket.IO packet as the live server encodes it (once per frame, whatever
the number of viewers: python-socketio encodes a room's packet once), and its bytes, with what
makes them up (the delta's keys). A keyframe of the same world is measured too, for comparison.

    python benchmarks/bench_frames.py [--counts 9,100,1000] [--ticks 60] [--size 256] [--packed]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

from asiworld.engine.frames import FrameBuilder
from asiworld.headless.bench import _spread
from asiworld.headless.run import Run, RunConfig
from asiworld.server.live import WireFrames
from asiworld.server.nesting import BoundedJSON
from socketio import packet

WARMUP = 20  # ticks before measuring: the first ones carry everyone's first walk and joins


def encode(frame: dict) -> str:
    """The live server's encoding of a frame event (socketio's packet with the server's JSON)."""
    packet.Packet.json = BoundedJSON
    return packet.Packet(packet.EVENT, namespace="/", data=["frame", frame]).encode()


def measure(
    characters: int, ticks: int, size: int, spread: bool, whole: bool = False, seed: int = 7
) -> dict:
    run = Run(RunConfig(seed=seed, minutes=0, agents=["forager"] * characters, stagger_ticks=0,
                        think_ticks=3, size=size))
    pipeline = run.pipeline
    pipeline.step()
    if spread:
        _spread(pipeline.world, seed)
    pipeline.frames = FrameBuilder(pipeline.world)  # a headless run builds none
    pipeline.frames.keyframe()  # the baseline a spectator starts from
    for _ in range(WARMUP):
        pipeline.step()
    builder = pipeline.frames
    built: list[float] = []
    original = builder.frame

    def timed(events: list) -> dict:
        t0 = time.perf_counter()
        out = original(events)
        built.append(time.perf_counter() - t0)
        return out

    builder.frame = timed
    sizes, encodes, packs, parts = [], [], [], Counter()
    wire = WireFrames()
    for _ in range(ticks):
        frame = pipeline.step().frame
        t0 = time.perf_counter()
        if not whole:
            frame = wire.pack(frame)
        packs.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        text = encode(frame)
        encodes.append(time.perf_counter() - t0)
        sizes.append(len(text.encode()))
        for key, value in frame["deltas"].items():
            parts[key] += len(BoundedJSON.dumps(value))
        if "entity_patches" in frame:
            parts["entity_patches"] += len(BoundedJSON.dumps(frame["entity_patches"]))
        parts["events"] += len(BoundedJSON.dumps(frame["events"]))
    builder.frame = original
    keyframe = FrameBuilder(pipeline.world).keyframe()
    t0 = time.perf_counter()
    key_text = encode(keyframe)
    key_seconds = time.perf_counter() - t0
    return {
        "characters": characters,
        "bytes_per_tick": statistics.mean(sizes),
        "bytes_p95": sorted(sizes)[int(0.95 * len(sizes))],
        "build_ms": 1000 * statistics.mean(built),
        "patch_ms": 1000 * statistics.mean(packs),
        "encode_ms": 1000 * statistics.mean(encodes),
        "keyframe_bytes": len(key_text.encode()),
        "keyframe_encode_ms": 1000 * key_seconds,
        "parts": {k: v / ticks for k, v in parts.most_common()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", default="9,100,1000")
    parser.add_argument("--ticks", type=int, default=60)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--packed", action="store_true", help="leave everyone round the plaza")
    parser.add_argument("--whole", action="store_true",
                        help="whole changed entities, as before the live server sent patches")
    args = parser.parse_args()
    counts = [int(n) for n in args.counts.split(",")]
    where = "packed at the plaza" if args.packed else "spread over it"
    print(f"frames on a {args.size}-tile map, built-in foragers {where}; {args.ticks} ticks each")
    for n in counts:
        row = measure(n, args.ticks, args.size, spread=not args.packed, whole=args.whole)
        parts = ", ".join(f"{k} {v / 1000:.1f} kB" for k, v in row["parts"].items())
        print(f"{n:>5} characters: {row['bytes_per_tick'] / 1000:8.1f} kB per tick "
              f"(p95 {row['bytes_p95'] / 1000:.1f}), build {row['build_ms']:.2f} ms, "
              f"patches {row['patch_ms']:.2f} ms, "
              f"encode {row['encode_ms']:.2f} ms; keyframe {row['keyframe_bytes'] / 1000:.0f} kB "
              f"in {row['keyframe_encode_ms']:.1f} ms", flush=True)
        print(f"       per tick: {parts}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
