"""Validation of the numeric options every command shares (sizes, budgets, counts)."""

from __future__ import annotations

import re

from .errors import InvalidOptionError
from .geometry import SIZES


def whole_number(name: str, value, minimum: int) -> int:
    """``value`` (an int or its text) as an int >= ``minimum``, else an error quoting it."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and re.fullmatch(r"\d+", value.strip()):
            value = int(value)
        else:
            raise InvalidOptionError(f"{name} {value!r} is not a whole number; expected an integer >= {minimum}")
    if value < minimum:
        raise InvalidOptionError(f"{name} {value!r} is too small; expected an integer >= {minimum}")
    return int(value)


def check_size(size) -> int:
    """A supported board width (3, 4 or 5) from an int or its text."""
    size = whole_number("size", size, 0)
    if size not in SIZES:
        raise InvalidOptionError(f"size {size!r} is not supported; expected one of {', '.join(map(str, SIZES))}")
    return size
