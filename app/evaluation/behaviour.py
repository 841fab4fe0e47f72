"""The report's "Behaviour" section: how configurations spend their time (phase shares), what
their dungeon clears cost, how they get knocked down and what the world refused them, from each
configuration's `profile` in results.json (profile.py). Its CSVs are tables/profiles.csv (one
row per run and configuration) and tables/knockdowns.csv (one row per knockdown); Figure 7 draws
the phase shares (figures.profiles_figure).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from asiworld.evaluation.measures import LEVELS
from asiworld.evaluation.phases import PHASES
from asiworld.evaluation.tables import MISSING, Grid, _table, csv_text, minutes, names_in_order

Results = dict[str, Any]
PROFILES_CSV = "tables/profiles.csv"
KNOCKDOWNS_CSV = "tables/knockdowns.csv"
SHOWN_CODES = 3  # the most frequent refusal codes the report's table names


def _rows(runs: list[Results]):
    for index, run in enumerate(runs):
        for row in run["configurations"]:
            if "profile" in row:  # an older results.json has none
                yield f"E{index + 1}", run, row


# The CSVs leave a missing number empty (what pandas and R read as missing); the report shows –.
def _share(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def _mean(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def _counts(counts: dict[str, int], limit: int | None = None, missing: str = "") -> str:
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ordered if limit is None else ordered[:limit]
    text = "; ".join(f"{k}={n}" for k, n in shown)
    if limit is not None and len(ordered) > limit:
        text += "; …"
    return text or missing


def profile_rows(runs: list[Results]) -> Grid:
    """tables/profiles.csv: every run's every configuration."""
    header = ["Run", "Seed", "Configuration", "Minutes", *PHASES, "Clears", "Damage per clear",
              "Supplies per clear", *(f"Level {lv} {k} per clear" for lv in LEVELS
                                      for k in ("damage", "supplies")),
              "Downs", "Downs in dungeons", "Downs at night", "Refusals", "Refusals by code"]
    rows = []
    for tag, run, row in _rows(runs):
        p = row["profile"]
        seed = run.get("meta", {}).get("seed", "")
        clears = p["clears"]
        downs = p["knockdowns"]
        rows.append([
            tag, str(seed), row["name"], f"{sum(p['phase_ticks'].values()) / 60:.1f}",
            *(_share(p["phases"][ph]) for ph in PHASES),
            str(clears["all"]["clears"]), _mean(clears["all"]["damage"]),
            _mean(clears["all"]["supplies"]),
            *(_mean(clears[str(lv)][k]) for lv in LEVELS for k in ("damage", "supplies")),
            str(len(downs)), str(sum(k["where"] != "surface" for k in downs)),
            str(sum(k["daytime"] == "night" for k in downs)),
            str(sum(p["refusals"].values())), _counts(p["refusals"]),
        ])  # fmt: skip
    return header, rows


def knockdown_rows(runs: list[Results]) -> Grid:
    """tables/knockdowns.csv: every knockdown and what preceded it."""
    header = ["Run", "Configuration", "Tick", "Minute", "Cause", "Where", "Time of day",
              "Last damage source", "Last damage", "Last damage tick", "Health after it",
              "Damage in the minute before"]
    rows = []
    for tag, _, row in _rows(runs):
        for k in row["profile"]["knockdowns"]:
            last = k["last_damage"] or {}
            rows.append([
                tag, row["name"], str(k["tick"]), minutes(k["tick"]), str(k["cause"]),
                k["where"], k["daytime"] or "", str(last.get("source", "")),
                str(last.get("amount", "")), str(last.get("tick", "")),
                str(last.get("health", "")), _counts(k["damage_before"]),
            ])  # fmt: skip
    return header, rows


def pool(runs: list[Results]) -> dict[str, dict[str, Any]]:
    """Per configuration, summed over the runs: ticks in each phase, clears with their damage
    and supplies, knockdowns (where, when, last damage source) and refusals by code."""
    pooled: dict[str, dict[str, Any]] = {}
    for name in names_in_order(runs):
        pooled[name] = {"label": "", "ticks": dict.fromkeys(PHASES, 0), "clears": 0,
                        "damage": 0.0, "supplies": 0.0, "downs": 0, "dungeon": 0, "night": 0,
                        "last": Counter(), "refusals": Counter(), "runs": 0}  # fmt: skip
    for _, _, row in _rows(runs):
        d, p = pooled[row["name"]], row["profile"]
        d["label"] = d["label"] or row.get("label") or ""
        d["runs"] += 1
        for ph, n in p["phase_ticks"].items():
            d["ticks"][ph] = d["ticks"].get(ph, 0) + n
        every = p["clears"]["all"]
        d["clears"] += every["clears"]
        d["damage"] += (every["damage"] or 0) * every["clears"]
        d["supplies"] += (every["supplies"] or 0) * every["clears"]
        for k in p["knockdowns"]:
            d["downs"] += 1
            d["dungeon"] += k["where"] != "surface"
            d["night"] += k["daytime"] == "night"
            d["last"][(k["last_damage"] or {}).get("source", "none")] += 1
        d["refusals"].update(p["refusals"])
    return {name: d for name, d in pooled.items() if d["runs"]}


def shares(ticks: dict[str, int]) -> dict[str, float]:
    total = sum(ticks.values())
    return {ph: (n / total if total else 0.0) for ph, n in ticks.items()}


def summary_rows(runs: list[Results]) -> Grid:
    """The report's table: pooled over the runs."""
    header = ["Configuration", *(ph.capitalize() for ph in PHASES), "Damage / clear",
              "Supplies / clear", "Downs (dungeon, night)", "Last damage before downs",
              "Refusals (most frequent)"]
    rows = []
    for name, d in pool(runs).items():
        share = shares(d["ticks"])
        n = d["clears"]
        rows.append([
            name, *(f"{100 * share[ph]:.1f}%" for ph in PHASES),
            f"{d['damage'] / n:.1f} (n={n})" if n else MISSING,
            f"{d['supplies'] / n:.1f}" if n else MISSING,
            f"{d['downs']} ({d['dungeon']}, {d['night']})",
            _counts(dict(d["last"]), SHOWN_CODES, MISSING),
            f"{sum(d['refusals'].values())}: {_counts(dict(d['refusals']), SHOWN_CODES)}"
            if d["refusals"] else "0",
        ])  # fmt: skip
    return header, rows


def _also(stem: str, formats: tuple[str, ...]) -> str:
    others = [f"[{fmt.upper()}]({stem}.{fmt})" for fmt in formats if fmt != "png"]
    return f" Also as {' and '.join(others)}." if others else ""


def markdown(runs: list[Results], figure: str | None,
             formats: tuple[str, ...] = ("png", "svg", "pdf")) -> str:
    """The report's "Behaviour" section, with Figure 7 when `figure` (its PNG) is given and
    links to the other `formats` written."""
    pooled = f", pooled over E1–E{len(runs)}" if len(runs) > 1 else ""
    header, rows = summary_rows(runs)
    parts = [
        "## Behaviour",
        "How each configuration spends its time in the world" + pooled + ": the share of its "
        "ticks (from joining to the end) in each phase of the replay viewer's timeline, the "
        "mean damage taken and supplies eaten per dungeon clear (n clears), knockdowns (of "
        "them in dungeons, at night) with the source of the last damage before each, and the "
        "actions the world refused, by code. Definitions in docs/evaluation.md, \"Behaviour\"; "
        "per world with intervals: the `phase.*`, `clear.*`, `downs.*` and `refusals.*` "
        "measures of aggregates.csv.",
        _table(header, rows) if rows else "No behaviour profiles.",
        f"CSV: [{PROFILES_CSV}]({PROFILES_CSV}) (per run and configuration, costs per level), "
        f"[{KNOCKDOWNS_CSV}]({KNOCKDOWNS_CSV}) (each knockdown and what preceded it).",
    ]
    if figure:
        stem = figure.rsplit(".", 1)[0]
        title = "Time in each phase" + (f" (pooled over E1–E{len(runs)})" if len(runs) > 1 else "")
        parts += [f"### Figure 7: {title}", f"![Figure 7]({figure})",
                  f"Figure 7: {title}. One stacked bar per configuration: the share of its ticks "
                  f"in each phase." + _also(stem, formats)]
    return "\n\n".join(parts)


def write(out: Any, runs: list[Results]) -> dict[str, Any]:
    """tables/profiles.csv and tables/knockdowns.csv under `out`; their paths."""
    paths = {"profiles_csv": out / PROFILES_CSV, "knockdowns_csv": out / KNOCKDOWNS_CSV}
    paths["profiles_csv"].write_text(csv_text(profile_rows(runs)), encoding="utf-8")
    paths["knockdowns_csv"].write_text(csv_text(knockdown_rows(runs)), encoding="utf-8")
    return paths
