"""Files the package reads at run time that live beside `app/` in a checkout.

`docs/` and `replays/` are folders of the repository; the wheel ships them inside the package
(setup.py maps them to `asiworld/docs` and `asiworld/replays`). One function finds them in both
layouts, so a non-editable install reads the same program API page as a checkout.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def shipped(folder: str) -> Path:
    """The folder `docs` or `replays` as installed: inside the package, else in the checkout."""
    inside = PACKAGE_DIR / folder
    return inside if inside.is_dir() else PACKAGE_DIR.parent / folder
