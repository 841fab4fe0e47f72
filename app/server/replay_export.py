"""`asiworld replay export --html`: one replay as one self-contained HTML file.

It lives with the server because it is the server's answers written into a file (the replay
package reaches no server code); `replay export` is dispatched here, and a PNG or GIF export goes
on to asiworld.replay.commands.

The file is the replay viewer (its template, modules, styles and sprite atlas) with every answer
the viewer would fetch from the server built beforehand by the server's own code (ReplayLibrary
and the blueprint's `coloured`), each gzipped and kept in the page as base64. A small script,
standalone.js, answers the viewer's fetches from them, so the page opens from file:// with no
server. Frame chunks (60 ticks each) are kept whole; a far seek's keyframe is rebuilt in the
browser from a keyframe kept every KEYFRAME_EVERY ticks plus the frames after it, so the file
holds a few dozen keyframes instead of one per tick. A character's point of view and forking
need the re-simulating server: the export hides them and says so.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import re
from pathlib import Path
from typing import Any

from asiworld import arguments as checked
from asiworld.engine import codes, load_content
from asiworld.replay import commands
from asiworld.replay.format import ReplayError
from asiworld.replay.library import ReplayLibrary, replay_path
from asiworld.server.api import content_summary
from asiworld.server.replays import coloured
from flask import Flask, render_template

APP_DIR = Path(__file__).resolve().parents[1]  # the asiworld package folder
STATIC = APP_DIR / "static"
KEYFRAME_EVERY = 600  # ticks (ten frame chunks): a far seek applies at most this many frames
ENTRY = "replay.js"
SHORT_NOTE = "one-file export: point of view and fork need a server"
IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*)(["'])\./([\w.-]+\.js)\2""")
NOTE = ("A replay exported as one file: a character's point of view and forking a live world "
        "need the server (asiworld serve --replays FOLDER).")


def _packed(value: Any) -> str:
    """JSON, gzipped and in base64: what the page keeps of one answer (decoded when asked for)."""
    raw = json.dumps(value, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def _data_url(path: Path, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def _replay_id(library: ReplayLibrary, path: Path) -> str:
    for rid, found in library.paths().items():
        if found.resolve() == path.resolve():
            return rid
    raise ReplayError(codes.NOT_A_REPLAY, f"{path} is not a replay file (*.asirep)")


def bundle(library: ReplayLibrary, rid: str) -> dict[str, Any]:
    """Every answer the viewer can ask for about `rid`, keyed as standalone.js looks them up."""
    meta = coloured(library.meta(rid))
    chunks = [json.loads(gzip.decompress(library.frame_chunk(rid, n)[0]))
              for n in range(len(meta["frame_chunks"]))]
    first, last = meta.get("first_tick"), meta.get("last_tick")
    keyframes: dict[str, str] = {}
    if first is not None and last is not None:
        for tick in range(first, last + 1, KEYFRAME_EVERY):
            keyframes[str(tick)] = _packed(library.frame_at(rid, tick))
    turns = library.turns(rid)
    full = {
        f"{conf['char']}/{m['turn']}": library.turn(rid, conf["char"], m["turn"])
        for conf in turns["configurations"] for m in conf["markers"]
    }
    return {
        "id": rid,
        "meta": _packed(meta),
        "overview": _packed(library.overview(rid)),
        "series": _packed(library.series(rid)),
        "turns": _packed(turns),
        "why": _packed(library.why(rid)),
        "turn": _packed(full),
        "content": _packed(content_summary(load_content())),
        # The library's chunk bodies, gzipped again harder (the server's quick level 1 is 1.8x
        # the size of level 9 on frames).
        "chunks": [_packed(c) for c in chunks],
        "keyframes": keyframes,
        "note": NOTE,
    }


def _modules() -> dict[str, str]:
    """The viewer's ES modules reachable from replay.js, imports renamed to the import map's
    `asiworld/NAME.js` (a module from a data: URL has no folder to resolve `./NAME.js` in)."""
    out: dict[str, str] = {}
    todo = [ENTRY]
    while todo:
        name = todo.pop()
        if name in out:
            continue
        source = (STATIC / "js" / name).read_text(encoding="utf-8")
        todo.extend(m.group(3) for m in IMPORT.finditer(source))
        out[name] = IMPORT.sub(lambda m: f"{m.group(1)}{m.group(2)}asiworld/{m.group(3)}{m.group(2)}",
                               source)
    return out


def _module_url(source: str) -> str:
    return "data:text/javascript;base64," + base64.b64encode(source.encode()).decode("ascii")


def _page(rid: str) -> str:
    """replay.html as the server renders it, for `rid`, with the site's links kept as they are
    (the export hides the ones that lead to a server)."""
    app = Flask("asiworld.export", static_folder=str(STATIC),
                template_folder=str(APP_DIR / "templates"))
    for endpoint, rule in (("pages.home", "/"), ("pages.live", "/live"),
                           ("pages.play", "/play"), ("pages.evaluation", "/evaluation")):
        app.add_url_rule(rule, endpoint=endpoint, view_func=lambda: "")
    with app.test_request_context(f"/replay/{rid}"):
        return render_template("replay.html", rid=rid, replays_url="/replays")


def _replace(html: str, pattern: str, new: str) -> str:
    out, n = re.subn(pattern, lambda _m: new, html)
    if n == 0:  # the template changed under the exporter: say so rather than write a broken page
        raise RuntimeError(f"the replay page no longer has {pattern!r}")
    return out


def _style(name: str, atlas: str) -> str:
    css = (STATIC / "css" / name).read_text(encoding="utf-8")
    return "<style>\n" + css.replace('url("../sprites/atlas.png")', f'url("{atlas}")') + "\n</style>"


def standalone_html(library: ReplayLibrary, rid: str) -> str:
    """The whole page for replay `rid` (a str of HTML that needs nothing else)."""
    atlas_png = _data_url(STATIC / "sprites" / "atlas.png", "image/png")
    data = bundle(library, rid)
    data["assets"] = {
        "/static/sprites/atlas.json": json.loads((STATIC / "sprites" / "atlas.json").read_text()),
        "/static/sprites/atlas.png": atlas_png,
    }
    imports = {f"asiworld/{name}": _module_url(src) for name, src in _modules().items()}
    shim = (STATIC / "js" / "standalone.js").read_text(encoding="utf-8")
    # A `</script` or `<!--` in a model's text would end or bend the script element: JSON has
    # `<` only inside strings, where `\u003c` says the same.
    payload = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    head = (
        '<meta name="asiworld-export" content="1">\n'
        f'<script type="application/json" id="asiworld-export">{payload}</script>\n'
        f"<script>\n{shim}\n</script>\n"
        f'<script type="importmap">{json.dumps({"imports": imports})}</script>\n'
    )
    html = _page(rid)
    html = _replace(html, r'<meta charset="utf-8">', '<meta charset="utf-8">\n' + head)
    html = _replace(html, r'<link rel="stylesheet" href="/static/css/site.css">',
                    _style("site.css", atlas_png))
    html = _replace(html, r'<link rel="stylesheet" href="/static/css/replay.css">',
                    _style("replay.css", atlas_png) + "\n<style>.topbar nav, .conn, .back, "
                    "#fork-open, label:has(> #pov) { display: none; }</style>")
    html = _replace(html, r'<link rel="modulepreload" href="[^"]+">\n?', "")
    html = _replace(html, r'<link rel="preload" href="/static/sprites/atlas.png" as="image">', "")
    html = _replace(html, r'<script type="module" src="/static/js/replay.js"></script>',
                    '<script type="module">import "asiworld/replay.js";</script>')
    html = _replace(html, r'<span class="spacer"></span>',
                    f'<span class="muted small" id="export-note" title="{NOTE}">{SHORT_NOTE}</span>'
                    '<span class="spacer"></span>')
    return html


def export_html(given: Path, out: Path) -> dict[str, Any]:
    """Write the standalone page of the replay at `given` (a file, or a folder holding one) to
    `out`; nothing is written when anything fails. Returns what was written (for the CLI)."""
    path = replay_path(given)
    with ReplayLibrary([path.parent]) as library:
        rid = _replay_id(library, path)
        html = standalone_html(library, rid)
        meta = library.meta(rid)
    data = html.encode("utf-8")
    partial = out.with_name(f".{out.name}.partial")
    try:
        partial.write_bytes(data)
        partial.replace(out)
    finally:
        partial.unlink(missing_ok=True)
    return {"path": str(out), "bytes": len(data), "replay": rid,
            "ticks": [meta.get("first_tick"), meta.get("last_tick")]}


def cmd_export(args: argparse.Namespace) -> int:
    """`asiworld replay export`: --html here, then --png / --gif as asiworld.replay.commands does."""
    if not args.html:
        return commands.cmd_export(args)
    try:
        wrote = export_html(args.file, args.html)
    except ReplayError as exc:
        return checked.refuse(exc.code, exc.message)
    except OSError as exc:
        return checked.refuse(codes.CANNOT_WRITE, f"{args.html}: {exc.strerror or exc}")
    except Exception as exc:  # a replay's bytes are untrusted: a coded line, never a traceback
        return checked.refuse(codes.DAMAGED_REPLAY, f"{args.file} holds data this exporter cannot "
                              f"use ({type(exc).__name__}: {str(exc)[:160]})")
    first, last = wrote["ticks"]
    print(f"wrote {wrote['path']} ({wrote['bytes'] / 1e6:.1f} MB, ticks {first}-{last}); "
          "open it in a browser, no server needed")
    if args.png or args.gif:
        return commands.cmd_export(args)
    return 0
