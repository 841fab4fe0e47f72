"""The map pages share their dungeon parts (app/static/js/dungeon-ui.js): what an area is called,
a character's badges, the boss bar and the landmark captions. No other script of the front end
declares its own copy, builds those parts itself or reads an area's name off the content."""

from __future__ import annotations

import re
from pathlib import Path

import asiworld

STATIC = Path(asiworld.__file__).parent / "static"
SHARED = STATIC / "js" / "dungeon-ui.js"
# The names the pages' own copies had before they were shared.
FORMER_COPIES = {"tierName", "areaText", "badges", "bossBar", "renderBossBar", "TIER_COLOURS", "SIGILS"}
# What only the shared module writes: the boss bar's parts, the area badge, the captions.
ITS_OWN_WORK = {
    "the boss bar's parts": re.compile(r"""["'](boss-name|boss-fill|boss-hp)["']"""),
    "an area badge": re.compile(r"badge area"),
    "a tier's or the Sanctum's name read off the content": re.compile(
        r"\b(spec|sanctum|tiers\[[^\]]*\])\??\.name\b"),
    "a landmark caption": re.compile(r"Exit \(sealed\)|Exit portal|Altar —"),
    "a tier spelt by hand": re.compile(r"""[`"']\s*\(?[Tt]ier \$\{"""),
}


def pages() -> dict[str, str]:
    scripts = [*STATIC.glob("js/*.js"), *STATIC.glob("*.js")]
    return {p.name: p.read_text(encoding="utf-8") for p in scripts if p != SHARED}


def declared(name: str, source: str) -> bool:
    return re.search(rf"\b(function\*?|const|let|var|class)\s+{re.escape(name)}\b", source) is not None


def shared_names() -> set[str]:
    return set(re.findall(r"^export (?:async )?(?:function|const|class) (\w+)", SHARED.read_text(), re.M))


def test_the_shared_module_exports_the_area_name_the_badges_the_boss_bar_and_the_captions():
    assert {"areaName", "badgeRow", "showBossBar", "landmarkCaptions"} <= shared_names()


def test_no_page_declares_its_own_copy_of_a_shared_helper():
    copies = [(page, name) for page, source in pages().items()
              for name in sorted(shared_names() | FORMER_COPIES) if declared(name, source)]
    assert copies == [], "declared again outside dungeon-ui.js: import it instead"


def test_no_page_builds_the_shared_parts_itself():
    found = [(page, what) for page, source in pages().items()
             for what, pattern in ITS_OWN_WORK.items() if pattern.search(source)]
    assert found == [], "written outside dungeon-ui.js"


def test_the_map_pages_use_the_shared_module():
    for page in ("live.js", "play.js", "replay.js"):
        assert re.search(r"""from\s+["']\./dungeon-ui\.js["']""", pages()[page]), page


def test_the_replay_clock_is_written_once_and_both_players_use_it():
    """The replay viewer and /compare play by one clock (js/play-clock.js): neither keeps its
    own count of ticks due at `ui.speed`, and both start it."""
    clock = STATIC / "js" / "play-clock.js"
    assert "export function playClock" in clock.read_text(encoding="utf-8")
    for name, source in pages().items():
        if name == clock.name:
            continue
        assert not re.search(r"\*\s*ui\.speed\s*\*", source), f"{name} runs a clock of its own"
    for player in ("replay.js", "compare.js"):
        assert "playClock({" in pages()[player], player
