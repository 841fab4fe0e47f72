"""`asiworld serve --study`: /evaluation in Chromium counts down to the study's horizon, then says
the world stopped and where its results are."""

from __future__ import annotations

from asiworld.agents.stand_in.fake_model import FakeModel, FakeModelServer
from asiworld.study.demo import demo_text
from playwright.sync_api import expect

from tests.hardening.serving import free_port, start_server, stop_server


def test_the_evaluation_page_counts_down_to_the_horizon(page, tmp_path, shot):
    with FakeModelServer(FakeModel()) as fake:
        study = tmp_path / "s.toml"
        study.write_text(demo_text(fake.url, minutes=2))
        port = free_port()
        proc = start_server(port, "--ephemeral", "--study", str(study), "--out",
                            str(tmp_path / "out"), "--figures", "none", "--speed", "15",
                            "--admin-token", "t")
        try:
            page.goto(f"http://127.0.0.1:{port}/evaluation")
            line = page.locator("#eval-countdown")
            expect(line).to_contain_text("horizon in")
            first = int(line.get_attribute("data-ticks-left"))
            assert 0 < first <= 120
            expect(line).not_to_have_attribute("data-ticks-left", str(first), timeout=5000)
            second = int(line.get_attribute("data-ticks-left"))
            assert second < first
            shot(page, "study-countdown")
            expect(line).to_have_attribute("data-finished", "1", timeout=60_000)
            expect(line).to_contain_text("reached its horizon (tick 120)")
            expect(line).to_contain_text(str(tmp_path / "out"))
            expect(page.locator("#eval-main tbody tr")).to_have_count(9)
        finally:
            stop_server(proc)
    assert (tmp_path / "out" / "results.json").is_file()
