"""The paper's tables T2-T9 (and the data of figures F4, F5), for one run or several runs
compared ("E1 / E2" cells), in Markdown and as CSV.

Every table takes a list of results dicts (one per run); with one run the cells are plain
values. Rows are configurations matched by name, in the first run's rank order. `TABLES` lists
them in the paper's numbering; each gives its header and rows, so Markdown and CSV agree.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from asiworld.evaluation.achievements import STAGE_NAMES
from asiworld.evaluation.measures import CATEGORIES, LEVELS
from asiworld.evaluation.score import COMPONENTS, WEIGHTS

Results = dict[str, Any]
Grid = tuple[list[str], list[list[str]]]  # a table's header and rows, for Markdown and CSV
MISSING = "–"


def names_in_order(runs: list[Results]) -> list[str]:
    """Configurations by their mean score over the runs they are in, best first (one run: its
    rank order; ties keep the order of first appearance)."""
    order: list[str] = []
    scores: dict[str, list[float]] = {}
    for run in runs:
        for row in run["configurations"]:
            if row["name"] not in order:
                order.append(row["name"])
            scores.setdefault(row["name"], []).append(float(row.get("score", 0.0)))
    if len(runs) == 1:
        return order
    return sorted(order, key=lambda n: -sum(scores[n]) / len(scores[n]))


def _row(run: Results, name: str) -> dict[str, Any] | None:
    return next((r for r in run["configurations"] if r["name"] == name), None)


def _cell(runs: list[Results], name: str, value) -> str:
    """One cell: `value(row)` for every run, joined with " / "."""
    parts = []
    for run in runs:
        row = _row(run, name)
        parts.append(MISSING if row is None else str(value(row)))
    return " / ".join(parts)


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |" for r in rows]
    return "\n".join(lines)


def yes_no(flag: bool) -> str:
    return "Y" if flag else "N"


def tenth(value: float) -> str:
    """One decimal, halves rounded up as a paper does (12.25 -> 12.3, 9.95 -> 10.0)."""
    return str(Decimal(repr(float(value))).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def trial(r: dict[str, Any]) -> str:
    return f"{r['achievements']['trial']}/8"


def progress(r: dict[str, Any]) -> str:
    """The completed prefix in percent, the paper's style: 1/8 is 12.5%."""
    return f"{tenth(100 * r['achievements']['trial'] / 8)}%"


def minutes(tick: int | None) -> str:
    return MISSING if tick is None else f"{tick / 60:.1f}"


def main_rows(runs: list[Results]) -> Grid:
    header = ["Rank", "Configuration", "Outfit", "Depth", "Hero", "Kills", "Bosses", "Crafts"]
    header += ["Coins", "Trial", "Downs", "Score"]
    rows = []
    for name in names_in_order(runs):

        def m(key: str, name: str = name) -> str:
            return _cell(runs, name, lambda r: r["measures"][key])

        rows.append(
            [
                _cell(runs, name, lambda r: r["rank"]),
                name,
                _cell(runs, name, lambda r: yes_no(r["measures"]["outfit"])),
                m("depth"),
                _cell(runs, name, lambda r: yes_no(r["measures"]["hero"])),
                m("kills"),
                m("bosses"),
                m("crafts"),
                m("coins"),
                _cell(runs, name, trial),
                m("downs"),
                _cell(runs, name, lambda r: r["score_shown"]),
            ]
        )
    return header, rows


def achievements_rows(runs: list[Results]) -> Grid:
    """Stages as rows, configurations as columns; a cell shows the minute the stage was met."""
    names = names_in_order(runs)
    rows = []
    for i, stage_name in enumerate(STAGE_NAMES):

        def met(r, i=i):
            stage = r["achievements"]["stages"][i]
            return f"✓ {minutes(stage['tick'])}" if stage["met"] else MISSING

        count = _joined(
            runs, lambda run, i=i: sum(r["achievements"]["stages"][i]["met"] for r in run["configurations"])
        )  # fmt: skip
        rows.append([f"{i + 1}. {stage_name}"] + [_cell(runs, n, met) for n in names] + [count])
    return ["Stage"] + names + ["Met by"], rows


def curriculum_rows(runs: list[Results]) -> Grid:
    """Table 8's columns: the completed prefix (Stages, Progress) and what limits it."""
    header = ["Configuration", "Stages", "Progress", "First unmet stage", "Missing qualification"]
    rows = []
    for name in names_in_order(runs):

        def unmet(r):
            u = r["achievements"]["first_unmet"]
            return "Complete" if u is None else u["name"]

        def missing(r):
            u = r["achievements"]["first_unmet"]
            return MISSING if u is None else u["missing"]

        rows.append([name, _cell(runs, name, trial), _cell(runs, name, progress),
                     _cell(runs, name, unmet), _cell(runs, name, missing)])  # fmt: skip
    return header, rows


def activity_rows(runs: list[Results]) -> Grid:
    header = ["Configuration", "Days", "Crafts", "Kills", "Bosses", "Downs", "Damage taken"]
    header += ["Supplies used"]
    keys = ["days", "crafts", "kills", "bosses", "downs", "damage_taken", "supplies_used"]
    shown = {"days": lambda r: tenth(r["measures"]["days"])}
    rows = [
        [name] + [_cell(runs, name, shown.get(k, lambda r, k=k: r["measures"][k])) for k in keys]
        for name in names_in_order(runs)
    ]
    return header, rows


def dungeon_rows(runs: list[Results]) -> Grid:
    """Pooled over runs: attempts, clears and mean damage in clears per difficulty level."""
    header = ["Configuration"] + [f"Level {lv}" for lv in LEVELS]
    rows = []
    for name, data in pool(runs).items():
        cells = [name]
        for level in LEVELS:
            d = data["dungeons"][str(level)]
            if not d["attempts"]:
                cells.append(MISSING)
                continue
            mean = f" ({d['clear_damage'] / d['clears']:.1f})" if d["clears"] else ""
            cells.append(f"{d['clears']}/{d['attempts']}{mean}")
        rows.append(cells)
    return header, rows


def actions_rows(runs: list[Results]) -> Grid:
    header = ["Configuration"] + list(CATEGORIES) + ["total"]
    rows = []
    for name, data in pool(runs).items():
        counts = data["actions"]
        rows.append(
            [name] + [str(counts.get(c, 0)) for c in CATEGORIES] + [str(sum(counts.values()))]
        )
    return header, rows


def incidents_rows(runs: list[Results]) -> Grid:
    header = ["Run", "Configuration", "Cause", "Start (min)", "End (min)", "Duration (s)"]
    rows = []
    for ri, run in enumerate(runs):
        tag = f"E{ri + 1}"
        listed = [(r["name"], i) for r in run["configurations"] for i in r["incidents"]]
        listed += [("(world)", i) for i in run.get("world_incidents", [])]
        for name, inc in listed:
            end = "ongoing" if inc.get("ongoing") else minutes(inc.get("end"))
            rows.append(
                [tag, name, str(inc.get("cause", "?")), minutes(inc.get("start")), end,
                 str(inc.get("duration", 0))]
            )  # fmt: skip
    if len(runs) == 1:
        header, rows = header[1:], [r[1:] for r in rows]
    return header, rows


def costs_table(runs: list[Results]) -> str:
    """Every seat's costs (a study's Table 5). Model seats: calls, tokens, dollars (at the
    configured prices), latency, failures, incidents, and what the answers were (tool calls /
    text actions / text / empty / malformed / failed). External seats: their agent-API calls, the
    tokens they reported with their lockstep decisions, and the calls answered with an error; python agents: their decide() calls and the ones that
    raised. Built-ins call nothing: their kind only."""
    header = ["Run", "Configuration", "Kind", "Calls", "Prompt tokens", "Completion tokens",
              "Dollars", "Latency p50 (ms)", "Latency p95 (ms)", "Failures", "Incidents",
              "Replies (tool/text action/text/empty/malformed/failed)"]
    rows = []
    for ri, run in enumerate(runs):
        for row in run.get("costs", []):
            if row.get("kind") != "openai":
                cells = ["—"] * 9
                if row.get("calls") is not None:  # an older results.json: 0 for every kind
                    if row.get("kind") in ("external", "human"):
                        cells[0] = str(row.get("api_calls", row["calls"]))
                    elif row.get("kind") == "python" or row["calls"]:
                        cells[0] = str(row["calls"])
                    if row.get("prompt_tokens") is not None:  # an outside seat's reported ones
                        cells[1] = str(row["prompt_tokens"])
                        cells[2] = str(row.get("completion_tokens", 0))
                    if cells[0] != "—":
                        cells[6] = "—" if row.get("failures") is None else str(row["failures"])
                        cells[7] = "—" if row.get("incidents") is None else str(row["incidents"])
            else:
                cells = [str(row.get(k, 0)) for k in ("calls", "prompt_tokens",
                                                      "completion_tokens")]
                dollars = row.get("dollars")
                cells.append("—" if dollars is None else f"{dollars:.4f}")
                cells += ["—" if row.get(k) is None else f"{row[k]:.1f}"
                          for k in ("latency_p50_ms", "latency_p95_ms")]
                cells += [str(row.get("failures", 0)), str(row.get("incidents", 0))]
                replies = row.get("replies")
                cells.append("—" if not replies else "/".join(
                    str(replies.get(k, 0)) for k in ("tool_call", "text_action", "text", "empty",
                                                      "malformed", "failed")))
            rows.append([f"E{ri + 1}", row["name"], row.get("kind", "?"), *cells])
    if len(runs) == 1:
        header, rows = header[1:], [r[1:] for r in rows]
    return _table(header, rows)


def _joined(runs: list[Results], value) -> str:
    return " / ".join(str(value(run)) for run in runs)


def pool(runs: list[Results]) -> dict[str, dict[str, Any]]:
    """Dungeon attempts and actions summed over runs, per configuration (for tables, figures)."""
    pooled: dict[str, dict[str, Any]] = {}
    for name in names_in_order(runs):
        dungeons = {str(lv): {"attempts": 0, "clears": 0, "clear_damage": 0} for lv in LEVELS}
        actions = {c: 0 for c in CATEGORIES}
        label = ""
        for run in runs:
            row = _row(run, name)
            if row is None:
                continue
            label = label or row.get("label") or ""
            for lv in LEVELS:
                src = row["dungeons"][str(lv)]
                for key in ("attempts", "clears", "clear_damage"):
                    dungeons[str(lv)][key] += src.get(key, 0)
            for category, count in row["actions"].items():
                actions[category] = actions.get(category, 0) + count
        pooled[name] = {"dungeons": dungeons, "actions": actions, "label": label}
    return pooled


def header_block(runs: list[Results]) -> str:
    lines = []
    for ri, run in enumerate(runs):
        meta = run.get("meta", {})
        known = ("seed", "minutes", "ticks", "wall_seconds", "state_hash")
        shown = [f"{k} {meta[k]}" for k in known if k in meta]
        shown += [f"{k} {v}" for k, v in meta.items() if k not in known and _scalar(v)]
        tag = f"E{ri + 1}" if len(runs) > 1 else "Run"
        lines.append(f"- **{tag}**: " + (", ".join(shown) or f"tick {run.get('tick', 0)}"))
    return "\n".join(lines)


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool)


def setting_rows(runs: list[Results]) -> Grid:
    """Table 2: the setting of the evaluation, from the run's header (meta) and its events."""
    names = names_in_order(runs)
    metas = [run.get("meta", {}) for run in runs]

    def per_run(value) -> str:
        values = [value(run, meta) for run, meta in zip(runs, metas, strict=True)]
        return values[0] if len(set(values)) == 1 else " / ".join(values)

    plural = "s" if len(names) != 1 else ""
    systems = f"{len(names)} agent configuration{plural} ({', '.join(names)}); one run per configuration"
    if len(runs) > 1:
        systems += f"; {len(runs)} repeated evaluations (E1–E{len(runs)})"
    rows = [
        ["Evaluated systems", systems],
        ["Environment", per_run(_environment)],
        ["Entry", per_run(_entry)],
        ["Evaluation horizon", per_run(_horizon)],
        ["Clock", per_run(_clock)],
        *([["Model prompts", per_run(_prompts)]] if any(m.get("prompts") for m in metas)
          else []),
        ["Primary tasks", "Outfit production and hidden-boss defeat"],
        ["Primary outcomes", "Success on each task"],
        ["Development measures",
         f"{len(STAGE_NAMES)} assessed achievements; independent coverage and completed prefix"],
    ]  # fmt: skip
    return ["Component", "Setting"], rows


def _environment(run: Results, meta: dict[str, Any]) -> str:
    text = "Newly initialized shared world"
    facts = [f"{k} {meta[k]}" for k in ("seed", "size") if meta.get(k) is not None]
    return text + (f" ({', '.join(facts)})" if facts else "")


def _entry(run: Results, meta: dict[str, Any]) -> str:
    entered = [r["entered"] for r in run["configurations"] if r.get("entered") is not None]
    if not entered:
        return MISSING
    first, last = min(entered), max(entered)
    text = f"joined between minute {minutes(first)} and {minutes(last)}"
    if first == last:
        text = f"all joined at minute {minutes(first)}"
    if "stagger_ticks" in meta:
        text += f" (stagger {meta['stagger_ticks']} ticks)"
    return ("Approximately synchronized entry: " if last - first <= 60 else "Staggered entry: ") + text


def _horizon(run: Results, meta: dict[str, Any]) -> str:
    ticks = meta.get("ticks", run.get("tick", 0))
    shown = meta.get("minutes", tenth(ticks / 60))
    return f"{shown} simulation minutes ({ticks} ticks)"


def _clock(run: Results, meta: dict[str, Any]) -> str:
    clock = meta.get("clock") or run.get("clock")
    if isinstance(clock, dict):
        clock = clock.get("rule") or ", ".join(f"{k} {v}" for k, v in clock.items() if _scalar(v))
    text = str(clock) if clock else "Headless lockstep (the world steps as fast as it can)"
    if "think_ticks" in meta:
        text += f"; built-in configurations take {meta['think_ticks']} ticks per decision"
    if meta.get("resumed"):  # a realtime study killed and resumed: its players started anew
        ticks = ", ".join(f"{t} (minute {minutes(t)})" for t in meta["resumed"])
        text += f"; interrupted and resumed at tick {ticks}"
    return text + "; 1 tick = 1 simulated second, a day = 30 minutes (20 day, 10 night)"


def _prompts(run: Results, meta: dict[str, Any]) -> str:
    """Each model seat's system prompt (its source and sha256) and how it was asked."""
    said = []
    for p in meta.get("prompts") or []:
        how = [f"{p.get('observation', 'text')} observation", f"{p.get('history', 0)} results"]
        if p.get("history_turns"):
            how.append(f"{p['history_turns']} turns kept")
        if p.get("tool_choice"):
            how.append(f"tool_choice {p['tool_choice']}")
        if p.get("tool_schemas", "full") != "full":
            how.append(f"{p['tool_schemas']} tool schemas")
        if p.get("text_actions", "off") != "off":
            how.append(f"text actions {p['text_actions']}")
        source = p.get("source") or "default"
        said.append(f"{p.get('name')}: {source} prompt (sha256 {str(p.get('sha256'))[:12]}, "
                    f"{p.get('characters')} characters; {', '.join(how)})")
    return "; ".join(said) or MISSING


def score_rows(runs: list[Results]) -> Grid:
    """Table 6: the composite's components and weights (content/score.toml), and each
    configuration's points."""
    names = names_in_order(runs)
    header = ["j", "Component x_m,j", "Interpretation", "Weight w_j"] + names
    rows = []
    for j, comp in enumerate(COMPONENTS, start=1):
        key = comp.key
        points = [_cell(runs, n, lambda r, key=key: f"{r['contributions'][key]:.1f}") for n in names]
        rows.append([str(j), comp.symbol, comp.meaning, f"{comp.weight:g}"] + points)
    total = f"{sum(WEIGHTS.values()):g}"
    rows.append(["", "Score", "Sum of weighted components", total]
                + [_cell(runs, n, lambda r: r["score_shown"]) for n in names])  # fmt: skip
    return header, rows


def records_rows(runs: list[Results]) -> Grid:
    """Table 7: achievement records per configuration: Y when recorded, – when absent."""
    header = ["Configuration", "Outfit", "Tier 1", "Tier 2", "Tier 3", "Hero", "Homes"]

    def record(flag: bool) -> str:
        return "Y" if flag else MISSING

    rows = []
    for name in names_in_order(runs):
        cells = [name, _cell(runs, name, lambda r: record(r["measures"]["outfit"]))]
        for tier in (1, 2, 3):
            cells.append(_cell(runs, name, lambda r, t=tier: record(r["dungeons"][str(t)]["clears"] > 0)))
        cells.append(_cell(runs, name, lambda r: record(r["measures"]["hero"])))
        cells.append(_cell(runs, name, lambda r: str(int(r["achievements"]["stages"][2]["met"]))))
        rows.append(cells)
    return header, rows


@dataclass(frozen=True)
class TableSpec:
    """One numbered table of the report: its number (as in the paper), file name and text."""

    number: str
    slug: str
    title: str
    caption: str
    rows: Callable[[list[Results]], Grid]

    @property
    def csv_name(self) -> str:
        return f"tables/{self.number}_{self.slug}.csv"


TABLES = (
    TableSpec("T2", "setting", "Main evaluation setting",
              "From the run's header and its events.", setting_rows),
    TableSpec("T3", "main", "Main evaluation: task success and activity",
              "Outfit and Hero: success on the production and exploration tasks (Y/N). Depth: "
              "deepest tier cleared. Trial: stages passed under the native cumulative rule. Downs: "
              "knockdowns. Score: Equation (1); ranked by the unrounded score.", main_rows),
    TableSpec("T4", "achievements", "Development achievements attained by each configuration",
              "Each stage assessed independently; a cell gives the simulation minute it was first "
              "met. Meals prepared by stove crafting count toward cooking.", achievements_rows),
    TableSpec("T5", "incidents", "Service interruptions (incidents)",
              "Incidents a harness reported, with their start, end and duration.", incidents_rows),
    TableSpec("T6", "score", "Components and weights of the composite score",
              "Count-based components are normalized by the cohort maximum; a configuration's "
              "column gives its points per component (weight times value).", score_rows),
    TableSpec("T7", "records", "Achievement records",
              "Y denotes a recorded achievement; – denotes an absent record. Tier k: a clear of "
              "that tier (boss defeated). Homes: locked homes of at least nine tiles.", records_rows),
    TableSpec("T8", "curriculum", "Curriculum completion",
              "Progress is the completed prefix; the first unmet stage identifies its limiting "
              "prerequisite.", curriculum_rows),
    TableSpec("T9", "activity", "Activity and survival outcomes",
              "Days: time alive and not knocked down, in days of 30 minutes, to a tenth.",
              activity_rows),
)  # fmt: skip
FIGURE_DATA = (
    TableSpec("F4", "data", "Data of Figure 4: dungeon performance by difficulty",
              "Clears / attempts at each difficulty level (4 = the Shadow Sanctum), with the mean "
              "damage taken in clears in brackets; pooled over the runs.", dungeon_rows),
    TableSpec("F5", "data", "Data of Figure 5: executed actions by category",
              "Counts of accepted actions; pooled over the runs.", actions_rows),
)  # fmt: skip


def main_table(runs: list[Results]) -> str:
    return _table(*main_rows(runs))


def achievements_table(runs: list[Results]) -> str:
    return _table(*achievements_rows(runs))


def curriculum_table(runs: list[Results]) -> str:
    return _table(*curriculum_rows(runs))


def activity_table(runs: list[Results]) -> str:
    return _table(*activity_rows(runs))


def dungeon_table(runs: list[Results]) -> str:
    return _table(*dungeon_rows(runs))


def actions_table(runs: list[Results]) -> str:
    return _table(*actions_rows(runs))


def incidents_table(runs: list[Results]) -> str:
    header, rows = incidents_rows(runs)
    return _table(header, rows) if rows else "No incidents."


def csv_text(grid: Grid) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(grid[0])
    writer.writerows(grid[1])
    return out.getvalue()


def _section(spec: TableSpec, runs: list[Results]) -> list[str]:
    header, rows = spec.rows(runs)
    body = _table(header, rows) if rows else f"No {spec.title.split(' (')[0].lower()}."
    label = "Table " + spec.number[1:] if spec.number.startswith("T") else spec.title
    heading = f"## {label}: {spec.title}" if spec.number.startswith("T") else f"### {spec.title}"
    return [heading, spec.caption, body, f"CSV: [{spec.csv_name}]({spec.csv_name})"]


def markdown(runs: list[Results], figures: dict[str, str], sections: list[str] = (),
             formats: tuple[str, ...] = ("png", "svg", "pdf")) -> str:
    """report.md: the header, `sections` (a comparison's statistics across worlds), Tables 2-9,
    Figures 4-6 with their captions (the figures carry none) and their data. `formats`: the
    figure files written (none: the captions and data stay, without a picture)."""
    title = "ASIWorld evaluation report" if len(runs) == 1 else "ASIWorld evaluation: runs compared"
    parts = [f"# {title}", header_block(runs)]
    if len(runs) > 1:
        parts.append(
            "Cells show each run in order: "
            + " / ".join(f"E{i + 1}" for i in range(len(runs)))
            + "."
        )
    parts += list(sections)
    for spec in TABLES:
        parts += _section(spec, runs)
    many = len(runs) > 1
    pooled = f" (pooled over E1–E{len(runs)})" if many else ""
    whiskers = (" Bars are pooled over the runs; whiskers are 95% bootstrap intervals over "
                "worlds (worlds resampled whole; a level tried or cleared in fewer than two "
                "worlds has none).") if many else ""
    bands = (f" Lines are means over {len(runs)} worlds (a world's value: the mean over the "
             "configuration's characters there), bands 95% bootstrap intervals over worlds; "
             "(c) and (d) are the share of worlds with the task done.") if many else \
        " (c) and (d) step from 0 to 100% when the task is done."
    captions = {
        "dungeons": ("Figure 4", "Dungeon performance by difficulty level" + pooled,
                     "(a) Share of attempts that defeat the level's boss, with clears/attempts "
                     "over each bar; (b) mean damage taken in those clears, with the number of "
                     "clears; a flat mark on the zero line is clears without damage. × marks no "
                     "attempt (a) or no clear (b)." + whiskers, FIGURE_DATA[0]),
        "actions": ("Figure 5", "Composition of executed game actions by category" + pooled,
                    "n is the number of executed actions." + (" Shares of the counts pooled "
                    "over the runs: a composition, without intervals." if many else ""),
                    FIGURE_DATA[1]),
        "progress": ("Figure 6", "Progress by minute", "(a) Score, (b) Trial stage reached, "
                     "(c) Outfit and (d) Hero task done, at the end of each minute, read from "
                     "the events." + bands, None),
    }  # fmt: skip
    for key, (label, title, caption, data) in captions.items():
        if key not in figures:
            continue
        stem = figures[key].rsplit(".", 1)[0]
        others = [f"[{fmt.upper()}]({stem}.{fmt})" for fmt in formats if fmt != "png"]
        also = f" Also as {' and '.join(others)}." if others else ""
        parts.append(f"## {label}: {title}")
        if "png" in formats:
            parts.append(f"![{label}]({figures[key]})")
        elif not formats:
            also = " (Not drawn: --figures none.)"
        parts.append(f"{label}: {title}. {caption}{also}")
        if data is not None:
            parts += _section(data, runs)
        else:
            parts.append("Data: [progress.csv](progress.csv), one row per run, character and "
                         "minute.")
    if any(run.get("costs") for run in runs):
        parts += ["## Model costs", "Per configuration: model requests (failed ones included),"
                  " tokens as the endpoint counted them, request latency, failed requests and"
                  " incidents (interruptions, each possibly several failed requests).",
                  costs_table(runs)]
    return "\n\n".join(parts) + "\n"
