"""E2E (issue 21): the replay inspector's "changes in the last 10 min" compare the shown tick
with the replay's own state ten minutes (600 ticks) before it, whichever way the viewer got
there: a seek forward far, back, and forward again give the replay's answer each time; items
with no count are not inventory rows."""

from __future__ import annotations

import json
import urllib.request

import pytest

from e2e.conftest import RID

pytestmark = pytest.mark.e2e


def api(server, path: str) -> dict:
    with urllib.request.urlopen(server["url"] + path) as resp:
        return json.loads(resp.read())


def pack(server, tick: int, char: int) -> dict[str, int]:
    entity = api(server, f"/api/replays/{RID}/state?tick={tick}")["keyframe"]["entities"].get(str(char))
    counts: dict[str, int] = {}
    for it in (entity or {}).get("inventory", []):
        counts[it["item"]] = counts.get(it["item"], 0) + it["count"]
    return counts


def expected_changes(server, tick: int, char: int) -> tuple[dict[str, int], dict[str, int]]:
    """(marks on inventory rows: item -> delta, items held then and none now: item -> delta)."""
    now, then = pack(server, tick, char), pack(server, max(0, tick - 600), char)
    deltas = {k: now.get(k, 0) - then.get(k, 0) for k in {*now, *then}}
    marked = {k.replace("_", " "): d for k, d in deltas.items() if d and k in now}
    gone = {k.replace("_", " "): d for k, d in deltas.items() if d and k not in now}
    return marked, gone


SHOWN = """() => {
  const rows = [...document.querySelectorAll('#inspect .inventory li')];
  const marks = {};
  for (const li of rows) {
    const b = li.querySelector('b');
    if (b) marks[li.querySelector('.item-name').textContent] = Number(b.textContent.trim());
  }
  const gone = document.querySelector('#inspect .gone-line');
  return {
    marks,
    counts: rows.map((li) => (li.querySelector('.item-count') || {}).textContent || ''),
    gone: gone ? gone.textContent : '',
    since: (document.querySelector('#inspect .changes-since') || {}).textContent || '',
  };
}"""


def shown_at(page, tick: int) -> dict:
    page.evaluate(f"window.__replay.seek({tick})")
    page.wait_for_function(
        f"window.__replay.ready && window.__replay.state.tick === {tick} &&"
        f" (document.querySelector('#inspect .changes-since') || {{}}).textContent?.includes('since tick {max(0, tick - 600)},')",
        timeout=30_000,
    )
    return page.evaluate(SHOWN)


def test_changes_compare_with_ten_minutes_before_whatever_the_seek_direction(page, replay_server):
    meta = api(replay_server, f"/api/replays/{RID}")
    char = next(c["id"] for c in meta["characters"] if c["name"] == "planner")
    late, early = 1500, 700
    marked_late, gone_late = expected_changes(replay_server, late, char)
    assert marked_late or gone_late, "the character's pack changes in those ten minutes"
    marked_early, gone_early = expected_changes(replay_server, early, char)

    page.goto(f"{replay_server['url']}/replay/{RID}?t=100&focus={char}")
    page.wait_for_function("window.__replay && window.__replay.ready", timeout=20_000)
    for tick, marked, gone in ((late, marked_late, gone_late), (early, marked_early, gone_early),
                               (late, marked_late, gone_late)):
        shown = shown_at(page, tick)
        assert shown["marks"] == marked, (tick, shown)
        for item, d in gone.items():
            assert f"{item} {d}" in shown["gone"], (tick, shown)
        if not gone:
            assert shown["gone"] == ""
        assert not any(c.startswith("×0") for c in shown["counts"]), shown  # no zero-count rows
