"""E2E: the replay of a realtime study that was killed and resumed says where. In Chromium, the
timeline's jump list offers "study resumed" once per character, the legend explains the marker,
a jump lands on the tick after the kill, and the event log says how each player came back."""

from __future__ import annotations

import pytest
from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer
from asiworld.cli import main
from asiworld.server.persistence import WorldStore
from playwright.sync_api import expect

from e2e.conftest import served
from tests.study.helpers import kill_mid_study
from tests.study.test_study_resume_realtime import MINUTES, study_text

# Killed a sixth of the way in (tick 60 of 360), not half-way: kill_mid_study stops the study
# between its reads of the store, so its realtime clock falls behind and, each time it goes
# on, catches up with a burst of up to MAX_LAG_SECONDS of ticks (100 at its speed). At load 8
# bursts and a reader off the CPU took a kill meant for tick 180 to tick 360, the horizon:
# nothing was left to resume, the resumed marks fell on the last tick, and the jump this test
# waits for could not land after it.
KILL_AT = 60


@pytest.fixture(scope="module")
def resumed_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("resumed-replay")
    out = root / "resumed"
    with FakeModelServer(FakeModel()) as fake:
        path = root / "study.toml"
        path.write_text(study_text(fake.url))
        kill_mid_study(path, out, KILL_AT)
        store = WorldStore(out)
        killed_at = store.last_tick()
        store.close()
        assert killed_at < MINUTES * 60, f"the study was killed at its horizon (tick {killed_at})"
        assert main(["study", "run", str(path), "--out", str(out), "--figures", "none"]) == 0
    with served({"SEED": 3, "WORLD_SIZE": 48, "SPEED": 5, "REPLAY_DIRS": [str(out)]}) as server:
        yield {"url": server["url"], "killed_at": killed_at}


def test_the_resume_is_marked_explained_and_reachable(page, resumed_server, shot):
    page.goto(f"{resumed_server['url']}/replay/resumed")
    page.wait_for_function("window.__replay && window.__replay.ready", timeout=20_000)
    option = page.locator("#jump-kind option[value=resumed]")
    expect(option).to_have_text("study resumed (5)", timeout=20_000)  # four seats, one built-in
    expect(option).to_be_enabled()
    expect(page.locator("#legend-resumed")).to_be_visible()
    page.select_option("#jump-kind", "resumed")
    page.click("#jump-next")
    # an event of tick t is shown in the frame of t + 1; the marks are stamped the tick after
    # the kill
    page.wait_for_function(f"window.__replay.tick === {resumed_server['killed_at'] + 2}",
                           timeout=10_000)
    page.click('button[data-panel="tab-events"]')
    expect(page.locator("#log").get_by_text("the study was resumed").first).to_be_visible()
    shot(page, "replay-resumed")
