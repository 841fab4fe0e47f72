"""The realtime clock: a study at a high speed (ten times the live default) holds its clock
within 5 % while the fake model, in a process of its own, fails every seat's calls 10-14
(`asiworld fake-model --fail 5xx:10-14`); the run completes, each seat's interruption is an
incident, and Table 5 and the cost table of report.md show them. The seats act by direct
actions (`programs = false`): every program is a host process of its own, and on this
two-core machine a realtime study whose programs run falls behind (docs/studies.md)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.request

import pytest
from asiworld.evaluation.figure_options import FigureOptions
from asiworld.study.run import run_study
from asiworld.study.spec import parse_study

from tests.study.helpers import realtime_text

NO_FIGURES = FigureOptions(formats=())  # the runs are checked here, not their figures

# Twenty milliseconds a tick: the world keeps it on this 2-core machine at a load of 18 (at 100 a
# tick, the fresh-clone suite beside two busy loops measured 80.7: a machine that cannot keep up,
# which the report then says, tests/evaluation/test_clock_warning.py).
SPEED = 50.0
MINUTES = 5
# name: (model, pause_ticks, may host programs)
SEATS = {"forager": ("fake-forager", 3, False), "explorer": ("fake-explorer", 5, False),
         "programmer": ("fake-programmer", 8, False)}


def realtime_study(url: str) -> str:
    return realtime_text(url, SEATS, MINUTES, SPEED)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("realtime")
    port = free_port()
    fake = subprocess.Popen(
        [sys.executable, "-m", "asiworld.cli", "fake-model", "--port", str(port),
         "--fail", "5xx:10-14"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "fake model on" in fake.stdout.readline()
        url = f"http://127.0.0.1:{port}/v1"
        text = realtime_study(url)
        (results,) = run_study(parse_study(text), text, out, say=lambda line: None, figures=NO_FIGURES)
        with urllib.request.urlopen(f"{url}/stats", timeout=10) as reply:
            received = json.loads(reply.read())["by_character"]
    finally:
        fake.kill()  # the process this test started
        fake.wait()
    return out, results, received


def test_the_study_completes_at_its_horizon(study):
    out, results, _ = study
    assert results["ticks"] == MINUTES * 60 and results["clock"]["kind"] == "realtime"
    assert json.loads((out / "results.json").read_text())["ticks"] == MINUTES * 60


def test_the_world_holds_its_speed_within_five_percent(study):
    out, results, _ = study
    measured = results["clock"]["measured_speed"]
    assert abs(measured - SPEED) <= 0.05 * SPEED, measured
    assert "**Warning:**" not in (out / "report.md").read_text(encoding="utf-8")


def test_the_failed_stretch_is_one_incident_per_seat(study):
    _, results, received = study
    rows = {r["name"]: r for r in results["costs"]}
    for name in SEATS:
        assert received[name]["faults"] == {"5xx": 5}  # calls 10..14 of each seat
        assert rows[name]["failures"] == 5 and rows[name]["incidents"] == 1
        assert rows[name]["calls"] > 14
    incidents = {c["name"]: c["incidents"] for c in results["configurations"]}
    for name in SEATS:
        (incident,) = incidents[name]
        assert incident["cause"] == "model_error" and incident["end"] >= incident["start"]
    assert incidents["planner"] == []


def test_table_5_and_the_cost_table_show_them(study):
    out, results, _ = study
    report = (out / "report.md").read_text()
    table5 = report.split("## Table 5:", 1)[1].split("\n## ", 1)[0]
    for name in SEATS:
        assert any(line.startswith(f"| {name} | model_error |") for line in table5.splitlines())
    costs = report.split("## Model costs", 1)[1]
    for name in SEATS:
        line = next(ln for ln in costs.splitlines() if ln.startswith(f"| {name} | openai |"))
        cells = [c.strip() for c in line.strip("| ").split("|")]
        assert cells[-3:-1] == ["5", "1"]  # failures, incidents (then the replies)
        assert cells[-1].endswith("/5")  # the five failed calls among the replies
