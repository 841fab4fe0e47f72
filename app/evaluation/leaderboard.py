"""A leaderboard across studies: every configuration of several studies or runs, ranked by its
mean score over its own study's worlds.

    studies = [read_study(Path(d)) for d in dirs]   # each validated against the results schema
    check_comparable(studies)                       # one content hash and one horizon, or refused
    board = rank(studies)
    write(out_dir, board, studies)                  # leaderboard.md, .csv, .html, .tex

A configuration is keyed by its study (the folder as given) and its name: "planner" of two
studies is two rows, each with its own worlds. Its score's interval, its task success rates
and its cost come from stats.py over that study's worlds, as the study's own report has them.
Everything is read and checked before anything is written.
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from asiworld.engine import codes
from asiworld.engine.errors import CodedError
from asiworld.evaluation import latex, longform, results_schema, stats
from asiworld.evaluation.aggregate import estimate_cell

# the measures a leaderboard shows; the others of a study stay in its own report
MEASURES = ("score", "outfit", "hero", "cost.dollars")


class LeaderboardError(CodedError):
    """Results that cannot be ranked together; `code` is stable."""


@dataclass(frozen=True)
class Study:
    """One DIR: a single run (results.json) or several worlds (comparison.json)."""

    name: str  # the folder as given, which keys its rows
    source: Path  # the file read
    runs: list[dict[str, Any]]

    def values(self, read: Any) -> list[str]:
        return list(dict.fromkeys(read(run.get("meta", {})) for run in self.runs))


@dataclass(frozen=True)
class Entry:
    study: str
    configuration: str
    score: stats.Estimate
    outfit: stats.Estimate | None
    hero: stats.Estimate | None
    dollars: stats.Estimate | None  # per world, at the study's prices; None without prices

    @property
    def score_per_dollar(self) -> float | None:
        if self.dollars is None or self.dollars.mean <= 0:
            return None
        return self.score.mean / self.dollars.mean


def read_study(folder: Path, name: str | None = None) -> Study:
    """DIR's comparison.json (a --seeds folder, a study of several seeds) or else its
    results.json (one run), checked against the results schema."""
    name = name or os.path.normpath(str(folder))
    for file in ("comparison.json", "results.json"):
        source = folder / file
        if source.is_file():
            break
    else:
        raise LeaderboardError(codes.RESULTS_MISSING, f"{folder} holds neither comparison.json nor "
                               "results.json (a run, a --seeds folder or a study's --out)")
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise LeaderboardError(codes.BAD_RESULTS, f"{source}: not JSON ({exc})") from None
    wrong = results_schema.problem(data)
    if wrong:
        raise LeaderboardError(codes.BAD_RESULTS, f"{source}: {wrong}")
    runs = data["results"] if data["schema"] == "asiworld-comparison/1" else [data]
    return Study(name, source, runs)


def _content(meta: dict[str, Any]) -> str:
    return str(meta["content_hash"])


def _horizon(meta: dict[str, Any]) -> str:
    return f"{float(meta['minutes']):g} minutes"


def _clock(meta: dict[str, Any]) -> str:
    if meta.get("clock"):
        return str(meta["clock"])
    return f"headless lockstep, {meta.get('think_ticks', '?')} ticks per decision"


def sources(study: Study) -> str:
    """Where a study's rows come from and how its time ran (the clock is not checked: a
    leaderboard may well rank the same configuration on two clocks, and says which)."""
    worlds = len(study.runs)
    return (f"{study.source}: {worlds} world{'s' if worlds != 1 else ''}; clock "
            + " and ".join(study.values(_clock)))


def check_comparable(studies: list[Study]) -> None:
    """Refuse studies that are not one setting: a different content hash (other rules or
    numbers of the game) or horizon, naming each study's value."""
    seen: dict[str, Study] = {}
    for study in studies:
        key = str(study.source.resolve())
        if key in seen:
            raise LeaderboardError(codes.DUPLICATE_STUDY, f"{study.name} and {seen[key].name} are "
                                   "the same results; give each once")
        seen[key] = study
    differ = []
    for what, read in (("content hash", _content), ("horizon", _horizon)):
        values = {s.name: s.values(read) for s in studies}
        if len({v for vs in values.values() for v in vs}) > 1:
            differ.append(f"{what}: " + ", ".join(f"{n} {' and '.join(vs)}"
                                                   for n, vs in values.items()))
    if differ:
        raise LeaderboardError(codes.MIXED_STUDIES, "these results are not one setting and are not "
                               "ranked together (" + "; ".join(differ) + ")")


def rank(studies: list[Study]) -> list[Entry]:
    """Every configuration of every study, best mean score first (ties: the order given)."""
    entries = []
    for study in studies:
        rows = [r for r in longform.rows(study.runs) if r["measure"] in MEASURES]
        found = {(e.configuration, e.measure): e for e in stats.estimates(rows)}
        for name in stats.configurations(rows):
            if (name, "score") not in found:
                continue
            entries.append(Entry(study.name, name, found[(name, "score")],
                                 found.get((name, "outfit")), found.get((name, "hero")),
                                 found.get((name, "cost.dollars"))))
    return sorted(entries, key=lambda e: -e.score.mean)


# --- the files ----------------------------------------------------------------------------------

HEADER = ["Rank", "Study", "Configuration", "Worlds", "Score", "Outfit", "Hero",
          "Dollars per world", "Score per dollar"]
CSV_COLUMNS = ("rank", "study", "configuration", "worlds", "score", "score_low", "score_high",
               "outfit", "outfit_low", "outfit_high", "hero", "hero_low", "hero_high",
               "dollars_per_world", "dollars_low", "dollars_high", "score_per_dollar")


def _dollars(e: stats.Estimate | None) -> str:
    if e is None:
        return "–"
    if e.low is None or e.high is None:
        return f"{e.mean:.4f}"
    return f"{e.mean:.4f} [{e.low:.4f}, {e.high:.4f}]"


def _per_dollar(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def grid(board: list[Entry]) -> list[list[str]]:
    return [[str(i), e.study, e.configuration, str(e.score.worlds), estimate_cell(e.score),
             estimate_cell(e.outfit), estimate_cell(e.hero), _dollars(e.dollars),
             _per_dollar(e.score_per_dollar)] for i, e in enumerate(board, start=1)]


def setting(studies: list[Study]) -> str:
    worlds = sum(len(s.runs) for s in studies)
    meta = studies[0].runs[0].get("meta", {})
    return (f"{len(studies)} stud{'ies' if len(studies) != 1 else 'y'}, {worlds} worlds in all; "
            f"content hash {_content(meta)}, horizon {_horizon(meta)}.")


NOTE = ("Each configuration is its study's: its mean score over that study's worlds with a "
        f"{stats.CONFIDENCE:.0%} bootstrap interval over worlds, its task success rates (Outfit, "
        "Hero) with Wilson intervals, its model cost per world in US dollars at the study's "
        "prices (– when the study set no price or the configuration calls no model), and its "
        "mean score per dollar. Configurations of different studies played different worlds: "
        "compare their intervals, not their ranks alone.")


def markdown(board: list[Entry], studies: list[Study]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "|".join("---" for _ in HEADER) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in grid(board)]
    read = "\n".join(f"- **{s.name}**: {sources(s)}" for s in studies)
    return "\n\n".join(["# ASIWorld leaderboard", setting(studies), NOTE, "\n".join(lines),
                        "## Results read", read]) + "\n"


def _triple(e: stats.Estimate | None) -> list[Any]:
    return [None, None, None] if e is None else [e.mean, e.low, e.high]


def csv_text(board: list[Entry]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for i, e in enumerate(board, start=1):
        cells = [i, e.study, e.configuration, e.score.worlds, *_triple(e.score),
                 *_triple(e.outfit), *_triple(e.hero), *_triple(e.dollars), e.score_per_dollar]
        writer.writerow(["" if c is None else c for c in cells])
    return out.getvalue()


def tex(board: list[Entry], studies: list[Study]) -> str:
    best = max((e.score.mean for e in board), default=None)
    bold = {(i, 4) for i, e in enumerate(board) if e.score.mean == best and len(board) > 1}
    return latex.tabular(HEADER, grid(board), "rllrrrrrr", "Leaderboard. " + setting(studies)
                         + " " + NOTE, bold)


# Sorting by a header: numbers by their data-value (missing last), text as text.
_SCRIPT = """
document.querySelectorAll("table.board th").forEach((th, col) => {
  th.addEventListener("click", () => {
    const body = th.closest("table").tBodies[0];
    const up = th.dataset.order !== "up";
    th.closest("tr").querySelectorAll("th").forEach((h) => delete h.dataset.order);
    th.dataset.order = up ? "up" : "down";
    const key = (row) => {
      const cell = row.cells[col];
      return "value" in cell.dataset ? parseFloat(cell.dataset.value) : cell.textContent;
    };
    const rows = Array.from(body.rows).sort((a, b) => {
      const x = key(a), y = key(b);
      if (typeof x === "number" || typeof y === "number") {
        if (isNaN(x) || isNaN(y)) return isNaN(x) - isNaN(y);
        return up ? x - y : y - x;
      }
      return up ? x.localeCompare(y) : y.localeCompare(x);
    });
    rows.forEach((row) => body.appendChild(row));
  });
});
"""
_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem;
       padding: 0 1rem; color: #1d2430; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: .35rem .6rem; border-bottom: 1px solid #d5dbe3; text-align: right; }
th { cursor: pointer; user-select: none; border-bottom: 2px solid #1d2430; white-space: nowrap; }
th[data-order="up"]::after { content: " \\25B2"; }
th[data-order="down"]::after { content: " \\25BC"; }
td.text, th.text { text-align: left; }
tbody tr:hover { background: #f2f5f9; }
.note { color: #4a5565; }
"""


def page(board: list[Entry], studies: list[Study]) -> str:
    """A self-contained HTML page (inline style and script, nothing fetched) whose table sorts
    by the header clicked."""
    numbers = [lambda i, e: i, None, None, lambda i, e: e.score.worlds,
               lambda i, e: e.score.mean, lambda i, e: e.outfit and e.outfit.mean,
               lambda i, e: e.hero and e.hero.mean, lambda i, e: e.dollars and e.dollars.mean,
               lambda i, e: e.score_per_dollar]
    esc = html.escape
    head = "".join(f'<th class="text">{esc(h)}</th>' if numbers[j] is None else f"<th>{esc(h)}</th>"
                   for j, h in enumerate(HEADER))
    body = []
    for (i, e), row in zip(enumerate(board, start=1), grid(board), strict=True):
        cells = []
        for j, text in enumerate(row):
            if numbers[j] is None:
                cells.append(f'<td class="text">{esc(text)}</td>')
            else:
                value = numbers[j](i, e)
                shown = "" if value is None else repr(float(value))
                cells.append(f'<td data-value="{shown}">{esc(text)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    read = "".join(f"<li><b>{esc(s.name)}</b>: {esc(sources(s))}</li>" for s in studies)
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        "<title>ASIWorld leaderboard</title>\n"
        f"<style>{_STYLE}</style>\n</head>\n<body>\n<h1>ASIWorld leaderboard</h1>\n"
        f"<p>{esc(setting(studies))}</p>\n<p class=\"note\">{esc(NOTE)} Click a column's "
        "header to sort by it.</p>\n"
        f'<table class="board">\n<thead><tr>{head}</tr></thead>\n<tbody>\n'
        + "\n".join(body) + "\n</tbody>\n</table>\n"
        f"<h2>Results read</h2>\n<ul>{read}</ul>\n<script>{_SCRIPT}</script>\n"
        "</body>\n</html>\n"
    )


def write(out: Path, board: list[Entry], studies: list[Study]) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    texts = {"markdown": ("leaderboard.md", markdown(board, studies)),
             "csv": ("leaderboard.csv", csv_text(board)),
             "html": ("leaderboard.html", page(board, studies)),
             "latex": ("leaderboard.tex", tex(board, studies))}
    paths = {}
    for key, (name, text) in texts.items():
        paths[key] = out / name
        paths[key].write_text(text, encoding="utf-8")
    return paths
