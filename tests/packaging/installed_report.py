"""Run by the installed package's interpreter (tests/packaging): prints, as JSON, where every
asiworld module came from and what the installed package reads and serves."""

from __future__ import annotations

import json
import sys

import asiworld
from asiworld import provenance
from asiworld.agents.clients.harness import system_prompt
from asiworld.engine import World
from asiworld.engine.content import CONTENT_DIR
from asiworld.resources import shipped
from asiworld.server import create_app


def origins() -> dict[str, list[str]]:
    # A namespace package (asiworld.docs) has no __file__, only its __path__.
    found = {}
    for name, module in sorted(sys.modules.items()):
        if name == "asiworld" or name.startswith("asiworld."):
            found[name] = [module.__file__] if module.__file__ else list(module.__path__)
    return found


def main() -> None:
    app = create_app({"SEED": 3, "WORLD_SIZE": 48, "TESTING": True})
    http = app.test_client()
    pages = {path: http.get(path) for path in ("/", "/static/js/live.js", "/replays")}
    print(
        json.dumps(
            {
                "file": asiworld.__file__,
                "meta_path": [repr(finder) for finder in sys.meta_path],
                "prompt": system_prompt(),
                "shipped_guide": (shipped("docs") / "player-guide.md").read_text("utf-8"),
                "folders": {
                    "docs": str(shipped("docs")),
                    "replays": str(shipped("replays")),
                    "content": str(CONTENT_DIR),
                    "templates": app.template_folder,
                    "static": app.static_folder,
                },
                "content_hash": World.create(seed=3, size=48).content.hash,
                "pages": {
                    path: [reply.status_code, reply.get_data(as_text=True)]
                    for path, reply in pages.items()
                },
                "provenance": provenance.stamp(),
                "modules": origins(),
            }
        )
    )


if __name__ == "__main__":
    main()
