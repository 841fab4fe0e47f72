"""What /live is served with (issue 34): on `serve --study` a banner with the study's name, its
minutes and ticks per minute (the page counts the minute from the frames' tick, so a resumed
study shows where its world is); /api/content says which creatures come out only at night, so
no page draws a remembered shade by day. Bad inputs tried: a study without a title (its file's
name), a server without a study (no banner)."""

from __future__ import annotations

import re

from asiworld.server.extensions import STUDY
from asiworld.study.demo import demo_text
from asiworld.study.live import LiveStudy
from asiworld.study.spec import parse_study


def live_study(tmp_path, text: str, where: str = "lab/night-shift.toml") -> LiveStudy:
    return LiveStudy(parse_study(text, where), text, tmp_path / "out", where, speed=10)


def test_a_study_banner_names_the_study_and_its_horizon(tmp_path):
    text = demo_text("http://127.0.0.1:9/v1", minutes=3)
    untitled = text.replace('title = "nine configurations"', "")
    titled, unnamed = live_study(tmp_path, text), live_study(tmp_path, untitled)
    try:
        banner = titled.banner()
        assert banner == {"name": "nine configurations", "minutes": 3, "ticks_per_minute": 60,
                          "horizon": 180, "clock": banner["clock"]}
        assert unnamed.banner()["name"] == "night-shift"
    finally:
        for study in (titled, unnamed):
            study.run.pipeline.close()  # its program host, if one was started


class Banner:
    """A study as /live reads it: its banner; stopped with the app (asiworld.server.close_app)."""

    def stop(self) -> None:
        pass

    def banner(self) -> dict:
        return {"name": "night <shift>", "minutes": 30, "ticks_per_minute": 60, "horizon": 1800,
                "clock": "lockstep"}


def test_live_carries_the_study_banner_only_while_a_study_runs(app):
    page = app.test_client().get("/live").get_data(as_text=True)
    assert 'id="study-banner"' not in page and "has-study" not in page
    app.extensions[STUDY] = Banner()
    page = app.test_client().get("/live").get_data(as_text=True)
    banner = re.search(r'<div class="study-banner" id="study-banner"[^>]*>', page).group(0)
    assert 'data-name="night &lt;shift&gt;"' in banner  # escaped: a title is the user's text
    assert 'data-minutes="30"' in banner and 'data-ticks-per-minute="60"' in banner
    assert 'data-horizon="1800"' in banner
    assert 'class="stage has-study"' in page


def test_content_says_which_creatures_come_out_only_at_night(app):
    creatures = app.test_client().get("/api/content").get_json()["creatures"]
    assert creatures["shade"]["night_only"] is True
    assert not any(c["night_only"] for kind, c in creatures.items() if kind != "shade")
