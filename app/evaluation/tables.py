"""The report's tables in Markdown, for one run or several runs compared ("E1 / E2" cells).

Every table takes a list of results dicts (one per run); with one run the cells are plain
values. Rows are configurations matched by name, in the first run's rank order.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from asiworld.evaluation.achievements import STAGE_NAMES
from asiworld.evaluation.measures import CATEGORIES, LEVELS

Results = dict[str, Any]
MISSING = "–"


def names_in_order(runs: list[Results]) -> list[str]:
    order: list[str] = []
    for run in runs:
        for row in run["configurations"]:
            if row["name"] not in order:
                order.append(row["name"])
    return order


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


def main_table(runs: list[Results]) -> str:
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
    return _table(header, rows)


def achievements_table(runs: list[Results]) -> str:
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
    return _table(["Stage"] + names + ["Met by"], rows)


def curriculum_table(runs: list[Results]) -> str:
    header = ["Configuration", "Stages met", "Trial", "Progress", "First unmet stage"]
    header += ["Missing qualification"]
    rows = []
    for name in names_in_order(runs):

        def unmet(r):
            u = r["achievements"]["first_unmet"]
            return "none (all passed)" if u is None else f"{u['stage']}. {u['name']}"

        def missing(r):
            u = r["achievements"]["first_unmet"]
            return MISSING if u is None else u["missing"]

        rows.append(
            [
                name,
                _cell(runs, name, lambda r: ", ".join(map(str, r["achievements"]["coverage"])) or MISSING),
                _cell(runs, name, trial),
                _cell(runs, name, progress),
                _cell(runs, name, unmet),
                _cell(runs, name, missing),
            ]
        )  # fmt: skip
    return _table(header, rows)


def activity_table(runs: list[Results]) -> str:
    header = ["Configuration", "Days", "Crafts", "Kills", "Bosses", "Downs", "Damage taken"]
    header += ["Supplies used"]
    keys = ["days", "crafts", "kills", "bosses", "downs", "damage_taken", "supplies_used"]
    shown = {"days": lambda r: tenth(r["measures"]["days"])}
    rows = [
        [name] + [_cell(runs, name, shown.get(k, lambda r, k=k: r["measures"][k])) for k in keys]
        for name in names_in_order(runs)
    ]
    return _table(header, rows)


def dungeon_table(runs: list[Results]) -> str:
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
    return _table(header, rows)


def actions_table(runs: list[Results]) -> str:
    header = ["Configuration"] + list(CATEGORIES) + ["total"]
    rows = []
    for name, data in pool(runs).items():
        counts = data["actions"]
        rows.append(
            [name] + [str(counts.get(c, 0)) for c in CATEGORIES] + [str(sum(counts.values()))]
        )
    return _table(header, rows)


def incidents_table(runs: list[Results]) -> str:
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
    if not rows:
        return "No incidents."
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
        for run in runs:
            row = _row(run, name)
            if row is None:
                continue
            for lv in LEVELS:
                src = row["dungeons"][str(lv)]
                for key in ("attempts", "clears", "clear_damage"):
                    dungeons[str(lv)][key] += src.get(key, 0)
            for category, count in row["actions"].items():
                actions[category] = actions.get(category, 0) + count
        pooled[name] = {"dungeons": dungeons, "actions": actions}
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


def markdown(runs: list[Results], figures: dict[str, str]) -> str:
    title = "ASIWorld evaluation report" if len(runs) == 1 else "ASIWorld evaluation: runs compared"
    parts = [f"# {title}", header_block(runs)]
    if len(runs) > 1:
        parts.append(
            "Cells show each run in order: "
            + " / ".join(f"E{i + 1}" for i in range(len(runs)))
            + "."
        )
    parts += [
        "## Main evaluation",
        main_table(runs),
        "Score = 30·Hero + 10·Outfit + 15·Depth/3 + 15·Bosses/max(Bosses) + 25·Crafts/max(Crafts)"
        " + 5·Trial/8, with cohort maxima per run; ranked by the unrounded score.",
        "## Achievements per stage",
        "Each stage assessed independently; a cell gives the simulation minute it was first met.",
        achievements_table(runs),
        "## Curriculum completion",
        "Trial is the completed prefix: a stage counts only after every earlier stage is passed.",
        curriculum_table(runs),
        "## Activity and survival",
        activity_table(runs),
        "## Dungeon performance by difficulty",
        "Clears / attempts at each difficulty level (4 = the Shadow Sanctum), with the mean damage"
        " taken in clears in brackets.",
        dungeon_table(runs),
    ]
    if "dungeons" in figures:
        parts.append(f"![Dungeon performance by difficulty]({figures['dungeons']})")
    parts += ["## Executed actions by category", actions_table(runs)]
    if "actions" in figures:
        parts.append(f"![Executed actions by category]({figures['actions']})")
    parts += ["## Incidents", incidents_table(runs)]
    return "\n\n".join(parts) + "\n"
