"""How the figures are drawn and which files are written: `--figure-style` and `--figures` of
`asiworld run`, `asiworld report` and `asiworld study run`. No matplotlib here: the options
travel to worker processes and Ray tasks with a run's settings.

    paper   a journal column (3.4 in wide), no titles (the caption belongs to the paper)
    screen  wider, with a plain title, for reading report.md

A figure's bytes depend on its data and its style only, never on how many formats are written
or which command wrote it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

STYLES = ("screen", "paper")
FORMAT_SETS = {"all": ("png", "svg", "pdf"), "png": ("png",), "none": ()}


@dataclass(frozen=True)
class FigureOptions:
    style: str = "screen"
    formats: tuple[str, ...] = FORMAT_SETS["all"]

    @property
    def drawn(self) -> bool:
        return bool(self.formats)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--figure-style and --figures, refused by argparse when not one of their choices."""
    parser.add_argument("--figure-style", choices=STYLES, default="screen",
                        help="paper: one journal column (3.4 in), no titles; screen: wider, "
                        "titled (default)")
    parser.add_argument("--figures", choices=tuple(FORMAT_SETS), default="all",
                        help="which figure files to write: all (PNG, SVG, PDF; default), png, "
                        "or none")


def from_args(args: argparse.Namespace) -> FigureOptions:
    return FigureOptions(style=args.figure_style, formats=FORMAT_SETS[args.figures])


DEFAULT = FigureOptions()
