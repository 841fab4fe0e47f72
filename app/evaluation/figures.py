"""The paper's figures, drawn with matplotlib's Agg canvas (no pyplot, no display, safe in a
server's threads) as PNG, SVG and PDF side by side (or fewer: FigureOptions.formats).

Figure 4: dungeon performance by difficulty level, (a) the share of attempts that defeat the
level's boss, (b) the mean damage taken in those clears; over several runs the bars are the
pooled numbers and the whiskers their 95% bootstrap intervals over worlds. Figure 5: the
composition of executed game actions by category, pooled. Figure 6: score, Trial stage and
tasks minute by minute, the mean over worlds with its band. Figure 7: the time in each phase
(`asiworld.evaluation.behaviour.pool`), pooled. Figures carry no "Figure N"
number or caption (report.md and a paper's LaTeX do); the "paper" style has no title at all
and fits one column. Colours come from the one palette (`asiworld.evaluation.palette`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from asiworld.evaluation.achievements import STAGE_NAMES
from asiworld.evaluation.figure_options import DEFAULT, FigureOptions
from asiworld.evaluation.measures import CATEGORIES, LEVEL_NAMES, LEVELS
from asiworld.evaluation.palette import category_colours, character_colours, phase_colours
from asiworld.evaluation.phases import PHASES
from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

INK = "#222222"
MUTED = "#6b6b6b"
GRID = "#e4e4e4"
STYLE = {
    "font.size": 8.5,
    "axes.titlesize": 9.5,
    "axes.labelsize": 8.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": INK,
    "axes.labelcolor": INK,
    "xtick.color": INK,
    "ytick.color": INK,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "svg.hashsalt": "asiworld",  # the same figure gives the same SVG
    "pdf.fonttype": 42,  # text stays text in the PDF
}
# One journal column: small sans-serif type, thin lines, no titles (the caption is the paper's).
PAPER = {**STYLE, "font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"],
         "font.size": 7, "axes.titlesize": 7, "axes.labelsize": 7, "xtick.labelsize": 6.5,
         "ytick.labelsize": 6.5, "legend.fontsize": 6.5, "axes.linewidth": 0.6,
         "xtick.major.width": 0.6, "ytick.major.width": 0.6, "lines.linewidth": 1.0}
COLUMN = 3.4  # inches: one column of a two-column journal page
UNDATED = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}  # the same figure, the same file
NO_DATA = "x"  # the marker that says "no attempt" / "no clear", never a zero bar


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)  # the Agg backend, chosen per figure
    return fig


def _save(fig: Figure, stem: Path, options: FigureOptions) -> Path:
    """stem.png, stem.svg and stem.pdf, those of `options.formats` (constrained layout: no
    second "tight" pass needed); returns the PNG's path. The layout is solved for the first
    format and kept for the others: each format's own pass was a sixth of a report's figures."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    for fmt in options.formats:
        fig.savefig(stem.with_suffix("." + fmt), dpi=200, metadata=UNDATED.get(fmt))
        fig.set_layout_engine("none")
    return stem.with_suffix(".png")


def _rc(options: FigureOptions) -> dict[str, Any]:
    return PAPER if options.style == "paper" else STYLE


def figure_colours(pooled: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Each row's configuration's colour (its label's), as the browser draws it."""
    return character_colours((name, row.get("label")) for name, row in pooled.items())


def pooled_note(runs: int) -> str:
    """The title's note for a figure over several runs: pooled, and over which."""
    return "" if runs <= 1 else f" (pooled over {runs} runs, E1–E{runs})"


def _title(fig: Figure, options: FigureOptions, text: str) -> None:
    if options.style == "screen":
        fig.suptitle(text, fontsize=10, color=INK)


def _whisker(ax: Any, x: float, value: float, interval: tuple[float, float] | None,
             gid: str) -> float:
    """A 95% interval over worlds around a bar; returns the top of what is drawn there."""
    if interval is None:
        return value
    low, high = interval
    drawn = ax.errorbar(x, value, yerr=[[max(0.0, value - low)], [max(0.0, high - value)]],
                        fmt="none", ecolor=INK, elinewidth=0.8, capsize=2, capthick=0.8)
    for part in (*drawn.lines[1], *drawn.lines[2]):
        part.set_gid(gid)
    return max(value, high)


def dungeon_figure(stem: Path, pooled: dict[str, dict[str, Any]], runs: int = 1,
                   intervals: dict[str, Any] | None = None,
                   options: FigureOptions = DEFAULT) -> Path:
    """Figure 4 in two panels; every bar carries its n, no attempt or no clear is a visible
    mark, a clear without damage a mark on the zero line, and `intervals` (figure_data.
    dungeon_intervals, over several runs) whiskers."""
    tried = [n for n, d in pooled.items() if any(d["dungeons"][str(lv)]["attempts"] for lv in LEVELS)]
    colour = figure_colours(pooled)
    intervals = intervals or {}
    paper = options.style == "paper"
    with rc_context(_rc(options)):
        fig = _figure(COLUMN, 4.6) if paper else _figure(7.2, 3.3)
        ax_a, ax_b = fig.subplots(2, 1) if paper else fig.subplots(1, 2)
        _title(fig, options, "Dungeon performance by difficulty level" + pooled_note(runs))
        width = 0.8 / max(1, len(tried))
        upright = len(tried) > 2 or paper  # n labels turn upright where bars stand close together
        label_size = 5.5 if paper else 6.5
        tops = [max(d["clear_damage"] / d["clears"],
                    (intervals.get(n, {}).get(lv, {}).get("damage") or (0, 0))[1])
                for n in tried for lv, d in pooled[n]["dungeons"].items() if d["clears"]]
        top_damage = max(tops, default=0.0)
        damage_top = top_damage * (1.3 if upright else 1.15) if top_damage else 10.0
        for ni, name in enumerate(tried):
            for li, level in enumerate(LEVELS):
                d = pooled[name]["dungeons"][str(level)]
                spread = intervals.get(name, {}).get(str(level), {})
                x = li + (ni - (len(tried) - 1) / 2) * width
                if d["attempts"]:
                    share = 100 * d["clears"] / d["attempts"]
                    ax_a.bar(x, share, width * 0.9, color=colour[name])
                    top = _whisker(ax_a, x, share, spread.get("share"), f"interval-{name}-{level}")
                    ax_a.text(x, top + 1.5, f"{d['clears']}/{d['attempts']}", ha="center",
                              va="bottom", fontsize=label_size, color=INK,
                              rotation=90 if upright else 0)  # fmt: skip
                else:
                    ax_a.plot(x, 4, NO_DATA, color=colour[name], markersize=6, mew=1.8)
                if d["clears"]:
                    mean = d["clear_damage"] / d["clears"]
                    ax_b.bar(x, mean, width * 0.9, color=colour[name])
                    if mean == 0:  # a bar of height 0 is no bar: a flat mark on the zero line
                        ax_b.plot([x - width * 0.42, x + width * 0.42], [0, 0], color=colour[name],
                                  linewidth=3, solid_capstyle="butt", clip_on=False,
                                  gid=f"zero-damage-{name}-{level}")  # fmt: skip
                    top = _whisker(ax_b, x, mean, spread.get("damage"), f"interval-{name}-{level}")
                    ax_b.text(x, top + damage_top * 0.012, f"n={d['clears']}", ha="center",
                              va="bottom", fontsize=label_size, color=INK,
                              rotation=90 if upright else 0)  # fmt: skip
                else:
                    ax_b.plot(x, damage_top * 0.04, NO_DATA, color=colour[name], markersize=6,
                              mew=1.8)  # fmt: skip
        ticks = [f"{lv}\n" + LEVEL_NAMES[lv].replace(" ", "\n") for lv in LEVELS]
        for ax in (ax_a, ax_b):
            ax.set_xticks(range(len(LEVELS)), ticks)
            ax.set_xlim(-0.6, len(LEVELS) - 0.4)
            ax.grid(axis="y", color=GRID, linewidth=0.6)
            ax.set_axisbelow(True)
        ax_b.set_xlabel("Difficulty level")
        if not paper:
            ax_a.set_xlabel("Difficulty level")
        ax_a.set_title("(a)" if paper else "(a) Share of attempts that defeat the boss", loc="left")
        ax_a.set_ylabel("Attempts cleared (%)")
        ax_a.set_ylim(0, 125 if upright else 115)
        ax_a.set_yticks([0, 25, 50, 75, 100])
        ax_b.set_title("(b)" if paper else "(b) Mean damage taken in those clears", loc="left")
        ax_b.set_ylabel("Damage taken per clear")
        # Room above the tallest bar for its label, no further: the axis fits the data.
        ax_b.set_ylim(0, damage_top)
        if not tried:
            for ax in (ax_a, ax_b):
                ax.text(1.5, ax.get_ylim()[1] / 2, "no dungeon attempts", ha="center",
                        color=MUTED)  # fmt: skip
        handles = [Patch(color=colour[n], label=n) for n in tried]
        handles += [Line2D([], [], marker=NO_DATA, linestyle="", color=MUTED, mew=1.6,
                           label="no attempt (a) / no clear (b)")]  # fmt: skip
        fig.legend(handles=handles, loc="outside lower center",
                   ncol=min(len(handles), 3 if paper else 6))  # fmt: skip
        return _save(fig, stem, options)


def actions_figure(stem: Path, pooled: dict[str, dict[str, Any]], runs: int = 1,
                   options: FigureOptions = DEFAULT) -> Path:
    """Figure 5: one stacked bar per configuration (share of its executed actions by category,
    pooled over the runs), its action count above it."""
    names = [n for n, d in pooled.items() if sum(d["actions"].values())]
    used = [c for c in CATEGORIES if any(pooled[n]["actions"].get(c, 0) for n in names)]
    counts = {n: {c: pooled[n]["actions"].get(c, 0) for c in CATEGORIES} for n in names}
    return _stacked_shares(
        stem, options, counts, used, category_colours(),
        title="Composition of executed game actions by category" + pooled_note(runs),
        above=lambda total: f"n={total}", ylabel="Share of executed actions (%)",
        empty="no executed actions", legend="Category")


PANELS = (("score", "Score", "(a) Score"), ("trial", "Trial stage", "(b) Trial stage reached"),
          ("outfit", "Worlds with Outfit (%)", "(c) Outfit task done"),
          ("hero", "Worlds with Hero (%)", "(d) Hero task done"))  # fmt: skip


def progress_figure(stem: Path, lines: dict[str, Any],
                    options: FigureOptions = DEFAULT) -> Path:
    """Figure 6: four panels over minutes, one line per configuration (its mean over worlds)
    and, over several worlds, its 95% bootstrap band."""
    paper = options.style == "paper"
    named = lines["lines"]
    colour = character_colours((n, d.get("label")) for n, d in named.items())
    minutes = lines["minutes"]
    with rc_context(_rc(options)):
        fig = _figure(COLUMN, 3.6) if paper else _figure(7.2, 4.8)
        axes = fig.subplots(2, 2, sharex=True).flatten()
        worlds = lines["worlds"]
        over = f" (mean over {worlds} worlds, 95% bands)" if worlds > 1 else ""
        _title(fig, options, "Progress by minute" + over)
        for ax, (measure, ylabel, title) in zip(axes, PANELS, strict=True):
            for name, data in named.items():
                series = data[measure]
                ax.plot(minutes, series["mean"], color=colour[name], label=name,
                        linewidth=1.0 if paper else 1.4, drawstyle="steps-post"
                        if measure == "trial" and worlds == 1 else "default")  # fmt: skip
                if worlds > 1 and any(not math.isnan(v) for v in series["low"]):
                    band = ax.fill_between(minutes, series["low"], series["high"],
                                           color=colour[name], alpha=0.2, linewidth=0)  # fmt: skip
                    band.set_gid(f"band-{name}-{measure}")
            ax.set_title(title.split(" ")[0] if paper else title, loc="left")
            ax.set_ylabel(ylabel)
            ax.grid(axis="y", color=GRID, linewidth=0.6)
            ax.set_axisbelow(True)
            ax.set_xlim(0, max(minutes, default=1))
        axes[1].set_ylim(-0.3, len(STAGE_NAMES) + 0.5)
        axes[1].set_yticks(range(0, len(STAGE_NAMES) + 1, 2))
        for ax in axes[2:]:
            ax.set_ylim(-5, 105)
            ax.set_yticks([0, 50, 100])
            ax.set_xlabel("Minute")
        if not named:
            axes[0].text(0.5, 0.5, "no progress recorded", ha="center",
                         transform=axes[0].transAxes, color=MUTED)  # fmt: skip
        handles = [Line2D([], [], color=colour[n], label=n) for n in named]
        if handles:
            fig.legend(handles=handles, loc="outside lower center",
                       ncol=min(len(handles), 3 if paper else 6))  # fmt: skip
        return _save(fig, stem, options)


def profiles_figure(stem: Path, pooled: dict[str, dict[str, Any]], runs: int = 1,
                    options: FigureOptions = DEFAULT) -> Path:
    """Figure 7: one stacked bar per configuration, the share of its ticks in each phase
    (`pooled`: asiworld.evaluation.behaviour.pool), its minutes in the world above it."""
    names = [n for n, d in pooled.items() if sum(d["ticks"].values())]
    counts = {n: {p: pooled[n]["ticks"].get(p, 0) for p in PHASES} for n in names}
    return _stacked_shares(
        stem, options, counts, list(PHASES), phase_colours(),
        title="Time in each phase" + pooled_note(runs),
        above=lambda total: f"{total / 60:.0f} min", ylabel="Share of time in the world (%)",
        empty="no time in the world", legend="Phase")


def _stacked_shares(stem: Path, options: FigureOptions, counts: dict[str, dict[str, int]],
                    parts: list[str], fill: dict[str, str], title: str, above: Any, ylabel: str,
                    empty: str, legend: str) -> Path:
    """One stacked bar per configuration (`counts`: name -> part -> count): each part's share
    in percent, labelled where it is wide enough, `above(total)` over the bar."""
    names = list(counts)
    paper = options.style == "paper"
    with rc_context(_rc(options)):
        fig = _figure(COLUMN, 3.2) if paper else _figure(max(4.8, 1.8 + 0.62 * len(names)), 3.4)
        ax = fig.subplots()
        if not paper:
            ax.set_title(title, fontsize=10, color=INK)
        for ni, name in enumerate(names):
            total = sum(counts[name].values())
            bottom = 0.0
            for part in parts:
                share = 100 * counts[name].get(part, 0) / total
                if share:
                    ax.bar(ni, share, 0.66, bottom=bottom, color=fill[part],
                           edgecolor="white", linewidth=0.4)  # fmt: skip
                    if share >= 7:
                        ax.text(ni, bottom + share / 2, f"{share:.0f}", ha="center",
                                va="center", fontsize=5.5 if paper else 6.5,
                                color=_ink_on(fill[part]))  # fmt: skip
                bottom += share
            ax.text(ni, 101.5, above(total), ha="center", va="bottom",
                    fontsize=5.5 if paper else 7, color=INK)  # fmt: skip
        turned = len(names) > (3 if paper else 5)
        # Names in ink: coloured names would read as the parts, whose colours fill the bars.
        ax.set_xticks(range(len(names)), names, rotation=30 if turned else 0,
                      ha="right" if turned else "center")  # fmt: skip
        ax.set_xlim(-0.6, max(0, len(names) - 1) + 0.6)
        ax.set_ylim(0, 108)
        ax.set_yticks([0, 25, 50, 75, 100])
        ax.set_ylabel(ylabel)
        ax.set_xlabel("Configuration")
        if not names:
            ax.text(0, 50, empty, ha="center", color=MUTED)
        handles = [Patch(color=fill[c], label=c) for c in reversed(parts)]
        if handles and paper:
            fig.legend(handles=handles[::-1], loc="outside lower center", ncol=4)
        elif handles:
            ax.legend(handles=handles, title=legend, loc="upper left",
                      bbox_to_anchor=(1.01, 1.0))  # fmt: skip
        return _save(fig, stem, options)


def _ink_on(hex_colour: str) -> str:
    """Dark text on light fills, white on dark ones, so every label stays readable."""
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "white"
