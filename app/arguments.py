"""Checked command-line values: every number and path a command takes is checked by argparse
before the command starts, so a bad one is one line `error: code: sentence` (exit 2) and nothing
has begun (no banner, no token, no half-written folder).

Each checker raises `BadValue`; `Parser.error` prints it with its own code, and any other argparse
complaint (a missing or unknown argument) as `bad_argument`.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import NoReturn
from urllib.parse import urlparse

from asiworld.engine import codes


class BadValue(argparse.ArgumentTypeError):
    """A value a checker refuses: a stable code and a sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")


_CODED = re.compile(r"^argument (?P<arg>[^:]+): (?P<code>[a-z_]+): (?P<sentence>.*)$", re.S)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose complaints are `error: code: sentence` on one line, exit 2.

    Sub-command parsers inherit the class (argparse makes them with the parent's class)."""

    def error(self, message: str) -> NoReturn:
        coded = _CODED.match(message)
        if coded:
            # "--runs must be at least 1 (got 0)": the sentence reads after the option's name
            line = f"error: {coded['code']}: {coded['arg'].split('/')[0]} {coded['sentence']}"
        else:
            line = f"error: {codes.BAD_ARGUMENT}: {message} (see {self.prog} --help)"
        print(line.replace("\n", " "), file=sys.stderr)
        raise SystemExit(2)


USAGE_ERROR = 2


def refuse(code: str, message: str) -> int:
    """Say a user's mistake found after parsing (`error: code: sentence` on stderr, the same
    shape as `Parser.error`) and give the exit code for it, for `return refuse(...)`."""
    print(f"error: {code}: {message}", file=sys.stderr)
    return USAGE_ERROR


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise BadValue(codes.BAD_ARGUMENT, f"must be a whole number (got {text!r})") from None


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise BadValue(codes.BAD_ARGUMENT, f"must be a number (got {text!r})") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise BadValue(codes.BAD_ARGUMENT, f"must be a finite number (got {text!r})")
    return value


def port(text: str) -> int:
    """A TCP port, 1..65535."""
    value = _integer(text)
    if not 1 <= value <= 65535:
        raise BadValue(codes.BAD_PORT, f"must be a port, 1..65535 (got {value})")
    return value


def positive_int(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise BadValue(codes.BAD_ARGUMENT, f"must be at least 1 (got {value})")
    return value


def count(text: str) -> int:
    """A whole number of zero or more (ticks, turns)."""
    value = _integer(text)
    if value < 0:
        raise BadValue(codes.BAD_ARGUMENT, f"must be 0 or more (got {value})")
    return value


MAP_SIZES = (48, 1024)  # the engine's smallest map; the largest a command accepts


def map_size(text: str) -> int:
    """A map's width and height in tiles."""
    value = _integer(text)
    low, high = MAP_SIZES
    if not low <= value <= high:
        raise BadValue(codes.BAD_ARGUMENT, f"must be a map size, {low}..{high} tiles (got {value})")
    return value


def counts(text: str) -> tuple[int, ...]:
    """Whole numbers of at least 1 separated by commas, e.g. 1,9,100."""
    parts = [p.strip() for p in text.split(",")]
    try:
        values = tuple(int(p) for p in parts)
    except ValueError:
        raise BadValue(codes.BAD_ARGUMENT,
                       f"must be whole numbers separated by commas (got {text!r})") \
            from None
    if not values or min(values) < 1:
        raise BadValue(codes.BAD_ARGUMENT, f"must be whole numbers of at least 1 (got {text!r})")
    return values


def positive_number(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise BadValue(codes.BAD_ARGUMENT, f"must be more than 0 (got {text})")
    return value


def seconds(text: str) -> float:
    """A duration of zero or more seconds."""
    value = _number(text)
    if value < 0:
        raise BadValue(codes.BAD_ARGUMENT, f"must be 0 or more seconds (got {text})")
    return value


def existing_file(text: str) -> Path:
    path = Path(text)
    if path.is_dir():
        raise BadValue(codes.NOT_A_FILE, f"names a folder, not a file: {text}")
    if not path.exists():
        raise BadValue(codes.FILE_NOT_FOUND, f"names no file: there is no {text}")
    if not os.access(path, os.R_OK):
        raise BadValue(codes.UNREADABLE, f"cannot be read: {text} (permissions)")
    return path


def existing_dir(text: str) -> Path:
    path = Path(text)
    if not path.exists():
        raise BadValue(codes.FOLDER_NOT_FOUND, f"names no folder: there is no {text}")
    if not path.is_dir():
        raise BadValue(codes.NOT_A_FOLDER, f"names a file, not a folder: {text}")
    return path


def _can_write_in(folder: Path) -> bool:
    """Tried, not guessed from permission bits (root passes those everywhere; /proc refuses
    anyway): an unnamed temporary file, gone when closed."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def _nearest_existing(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def writable_dir(text: str) -> Path:
    """A folder that exists and can be written, or that can be made (its nearest existing
    parent is a writable folder)."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise BadValue(codes.NOT_A_FOLDER, f"names a file, not a folder: {text}")
    base = _nearest_existing(path)
    if not base.is_dir():
        raise BadValue(codes.NOT_A_FOLDER, f"cannot be made: {base} is a file")
    if not _can_write_in(base):
        why = "" if base == path.absolute() else f" ({base} is not writable)"
        raise BadValue(codes.NOT_WRITABLE, f"cannot be written: {text}{why}")
    return path


def writable_file(text: str) -> Path:
    """A file path to write: not a folder, and its folder exists and is writable."""
    path = Path(text)
    if path.is_dir():
        raise BadValue(codes.NOT_A_FILE, f"names a folder, not a file to write: {text}")
    parent = path.absolute().parent
    if not parent.is_dir():
        raise BadValue(codes.FOLDER_NOT_FOUND, f"cannot be written: there is no folder {parent}")
    if not _can_write_in(parent) or (path.exists() and not os.access(path, os.W_OK)):
        raise BadValue(codes.NOT_WRITABLE, f"cannot be written: {text} (permissions)")
    return path


def http_url(text: str) -> str:
    """An http(s) URL with a host, e.g. http://127.0.0.1:8000."""
    parsed = urlparse(text)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise BadValue(codes.BAD_URL, f"must be a URL like http://HOST:PORT (got {text!r})")
    try:
        parsed.port  # noqa: B018 - reading it checks the port
    except ValueError:
        raise BadValue(codes.BAD_URL, f"must have a port 1..65535 (got {text!r})") from None
    return text


SEEDS_MAX = 10_000  # one world per seed: more than this is a typo, not a study


def seed_list(text: str) -> list[int]:
    """World seeds: `A..B` (A to B, both included), or `A,B,C`; whole numbers 0 or more."""
    def one(part: str) -> int:
        part = part.strip()
        if not part.isdigit() or int(part) > 2**63 - 1:
            raise BadValue(codes.BAD_SEEDS, f"must be seeds like 1..4 or 3,5,8, each below 2**63 "
                           f"(got {text!r})")
        return int(part)

    if ".." in text:
        first, _, last = text.partition("..")
        low, high = one(first), one(last)
        if high < low:
            raise BadValue(codes.BAD_SEEDS, f"must run upwards: {text!r} ends below its start")
        seeds = list(range(low, high + 1)) if high - low < SEEDS_MAX else []
    else:
        seeds = [one(part) for part in text.split(",")]
        twice = next((s for s in seeds if seeds.count(s) > 1), None)
        if twice is not None:
            raise BadValue(codes.BAD_SEEDS, f"names seed {twice} twice (got {text!r})")
    if not seeds or len(seeds) > SEEDS_MAX:
        raise BadValue(codes.BAD_SEEDS, f"must name 1 to {SEEDS_MAX} seeds (got {text!r})")
    return seeds
