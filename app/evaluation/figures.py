"""The paper's figures, drawn with matplotlib's Agg canvas (no pyplot, no display, safe in a
server's threads) as PNG, SVG and PDF side by side.

Figure 4: dungeon performance by difficulty level, (a) the share of attempts that defeat the
level's boss, (b) the mean damage taken in those clears. Figure 5: the composition of executed
game actions by category. Both take the pooled per-configuration data of
`asiworld.evaluation.tables.pool`, so one run and several runs (titled as pooled) draw alike.
Figure 7: the time in each phase, from `asiworld.evaluation.behaviour.pool`.
Colours come from the one palette (`asiworld.evaluation.palette`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from asiworld.evaluation.measures import CATEGORIES, LEVEL_NAMES, LEVELS
from asiworld.evaluation.palette import category_colours, character_colours, phase_colours
from asiworld.evaluation.phases import PHASES
from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

FORMATS = ("png", "svg", "pdf")
INK = "#222222"
MUTED = "#6b6b6b"
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
UNDATED = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}  # the same figure, the same file
NO_DATA = "x"  # the marker that says "no attempt" / "no clear", never a zero bar


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)  # the Agg backend, chosen per figure
    return fig


def _save(fig: Figure, stem: Path) -> Path:
    """stem.png, stem.svg and stem.pdf (constrained layout: no second "tight" pass needed);
    returns the PNG's path."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    for fmt in FORMATS:
        fig.savefig(stem.with_suffix("." + fmt), dpi=200, metadata=UNDATED.get(fmt))
    return stem.with_suffix(".png")


def figure_colours(pooled: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Each row's configuration's colour (its label's), as the browser draws it."""
    return character_colours((name, row.get("label")) for name, row in pooled.items())


def pooled_note(runs: int) -> str:
    """The title's note for a figure over several runs: pooled, and over which."""
    return "" if runs <= 1 else f" (pooled over {runs} runs, E1–E{runs})"


def dungeon_figure(stem: Path, pooled: dict[str, dict[str, Any]], runs: int = 1) -> Path:
    """Figure 4 in two panels; every bar carries its n, and no attempt is a visible mark."""
    tried = [n for n, d in pooled.items() if any(d["dungeons"][str(lv)]["attempts"] for lv in LEVELS)]
    colour = figure_colours(pooled)
    with rc_context(STYLE):
        fig = _figure(7.2, 3.3)
        ax_a, ax_b = fig.subplots(1, 2)
        fig.suptitle("Figure 4: Dungeon performance by difficulty level" + pooled_note(runs),
                     fontsize=10, color=INK)  # fmt: skip
        width = 0.8 / max(1, len(tried))
        upright = len(tried) > 2  # n labels turn upright where bars stand close together
        top_damage = max((d["clear_damage"] / d["clears"] for n in tried
                          for d in pooled[n]["dungeons"].values() if d["clears"]), default=0.0)
        damage_top = top_damage * (1.3 if upright else 1.15) if top_damage else 10.0
        for ni, name in enumerate(tried):
            for li, level in enumerate(LEVELS):
                d = pooled[name]["dungeons"][str(level)]
                x = li + (ni - (len(tried) - 1) / 2) * width
                if d["attempts"]:
                    share = 100 * d["clears"] / d["attempts"]
                    ax_a.bar(x, share, width * 0.9, color=colour[name])
                    ax_a.text(x, share + 1.5, f"{d['clears']}/{d['attempts']}", ha="center",
                              va="bottom", fontsize=6.5, color=INK,
                              rotation=90 if upright else 0)  # fmt: skip
                else:
                    ax_a.plot(x, 4, NO_DATA, color=colour[name], markersize=6, mew=1.8)
                if d["clears"]:
                    mean = d["clear_damage"] / d["clears"]
                    ax_b.bar(x, mean, width * 0.9, color=colour[name])
                    ax_b.text(x, mean + damage_top * 0.012, f"n={d['clears']}", ha="center",
                              va="bottom", fontsize=6.5, color=INK,
                              rotation=90 if upright else 0)  # fmt: skip
                else:
                    ax_b.plot(x, damage_top * 0.04, NO_DATA, color=colour[name], markersize=6,
                              mew=1.8)  # fmt: skip
        ticks = [f"{lv}\n" + LEVEL_NAMES[lv].replace(" ", "\n") for lv in LEVELS]
        for ax in (ax_a, ax_b):
            ax.set_xticks(range(len(LEVELS)), ticks)
            ax.set_xlim(-0.6, len(LEVELS) - 0.4)
            ax.set_xlabel("Difficulty level")
            ax.grid(axis="y", color="#e4e4e4", linewidth=0.6)
            ax.set_axisbelow(True)
        ax_a.set_title("(a) Share of attempts that defeat the boss", loc="left")
        ax_a.set_ylabel("Attempts cleared (%)")
        ax_a.set_ylim(0, 125 if upright else 115)
        ax_a.set_yticks([0, 25, 50, 75, 100])
        ax_b.set_title("(b) Mean damage taken in those clears", loc="left")
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
                   ncol=min(len(handles), 6))  # fmt: skip
        return _save(fig, stem)


def actions_figure(stem: Path, pooled: dict[str, dict[str, Any]], runs: int = 1) -> Path:
    """Figure 5: one stacked bar per configuration (share of its executed actions by category),
    its action count above it."""
    names = [n for n, d in pooled.items() if sum(d["actions"].values())]
    used = [c for c in CATEGORIES if any(pooled[n]["actions"].get(c, 0) for n in names)]
    fill = category_colours()
    with rc_context(STYLE):
        fig = _figure(max(4.8, 1.8 + 0.62 * len(names)), 3.4)
        ax = fig.subplots()
        ax.set_title("Figure 5: Composition of executed game actions by category"
                     + pooled_note(runs), fontsize=10, color=INK)  # fmt: skip
        for ni, name in enumerate(names):
            counts = pooled[name]["actions"]
            total = sum(counts.get(c, 0) for c in CATEGORIES)
            bottom = 0.0
            for category in used:
                share = 100 * counts.get(category, 0) / total
                if share:
                    ax.bar(ni, share, 0.66, bottom=bottom, color=fill[category],
                           edgecolor="white", linewidth=0.4)  # fmt: skip
                    if share >= 7:
                        ax.text(ni, bottom + share / 2, f"{share:.0f}", ha="center",
                                va="center", fontsize=6.5, color=_ink_on(fill[category]))  # fmt: skip
                bottom += share
            ax.text(ni, 101.5, f"n={total}", ha="center", va="bottom", fontsize=7, color=INK)
        ax.set_xticks(range(len(names)), names, rotation=30 if len(names) > 5 else 0,
                      ha="right" if len(names) > 5 else "center")  # fmt: skip
        for label, name in zip(ax.get_xticklabels(), names, strict=True):
            label.set_color(figure_colours(pooled)[name])  # the configuration's colour everywhere
            label.set_fontweight("bold")
        ax.set_xlim(-0.6, max(0, len(names) - 1) + 0.6)
        ax.set_ylim(0, 108)
        ax.set_yticks([0, 25, 50, 75, 100])
        ax.set_ylabel("Share of executed actions (%)")
        ax.set_xlabel("Configuration")
        if not names:
            ax.text(0, 50, "no executed actions", ha="center", color=MUTED)
        handles = [Patch(color=fill[c], label=c) for c in reversed(used)]
        if handles:
            ax.legend(handles=handles, title="Category", loc="upper left",
                      bbox_to_anchor=(1.01, 1.0))  # fmt: skip
        return _save(fig, stem)


def profiles_figure(stem: Path, pooled: dict[str, dict[str, Any]], runs: int = 1) -> Path:
    """Figure 7: one stacked bar per configuration, the share of its ticks in each phase
    (`pooled`: asiworld.evaluation.behaviour.pool), its minutes in the world above it."""
    names = [n for n, d in pooled.items() if sum(d["ticks"].values())]
    fill = phase_colours()
    colour = character_colours((n, pooled[n].get("label")) for n in names)
    with rc_context(STYLE):
        fig = _figure(max(4.8, 1.8 + 0.62 * len(names)), 3.4)
        ax = fig.subplots()
        ax.set_title("Figure 7: Time in each phase" + pooled_note(runs), fontsize=10, color=INK)
        for ni, name in enumerate(names):
            ticks = pooled[name]["ticks"]
            total = sum(ticks.values())
            bottom = 0.0
            for phase in PHASES:
                share = 100 * ticks.get(phase, 0) / total
                if share:
                    ax.bar(ni, share, 0.66, bottom=bottom, color=fill[phase],
                           edgecolor="white", linewidth=0.4)  # fmt: skip
                    if share >= 7:
                        ax.text(ni, bottom + share / 2, f"{share:.0f}", ha="center",
                                va="center", fontsize=6.5, color=_ink_on(fill[phase]))  # fmt: skip
                bottom += share
            ax.text(ni, 101.5, f"{total / 60:.0f} min", ha="center", va="bottom", fontsize=7,
                    color=INK)  # fmt: skip
        ax.set_xticks(range(len(names)), names, rotation=30 if len(names) > 5 else 0,
                      ha="right" if len(names) > 5 else "center")  # fmt: skip
        for label, name in zip(ax.get_xticklabels(), names, strict=True):
            label.set_color(colour[name])
            label.set_fontweight("bold")
        ax.set_xlim(-0.6, max(0, len(names) - 1) + 0.6)
        ax.set_ylim(0, 108)
        ax.set_yticks([0, 25, 50, 75, 100])
        ax.set_ylabel("Share of time in the world (%)")
        ax.set_xlabel("Configuration")
        if not names:
            ax.text(0, 50, "no time in the world", ha="center", color=MUTED)
        handles = [Patch(color=fill[p], label=p) for p in reversed(PHASES)]
        ax.legend(handles=handles, title="Phase", loc="upper left", bbox_to_anchor=(1.01, 1.0))
        return _save(fig, stem)


def _ink_on(hex_colour: str) -> str:
    """Dark text on light fills, white on dark ones, so every label stays readable."""
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "white"
