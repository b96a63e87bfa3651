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


_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9,
          "t": 10**12, "tb": 10**12, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}


def byte_size(name: str, value, minimum: int = 1 << 20) -> int:
    """``value`` (bytes, or text such as ``700MB``, ``2GiB``, ``1.5G``) as whole bytes >= ``minimum``."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", value) if isinstance(value, str) else None
        unit = match.group(2).lower() if match else None
        if unit not in _UNITS:
            raise InvalidOptionError(f"{name} {value!r} is not a size; expected bytes or a number with "
                                     "a unit such as 700MB or 2GiB")
        number = int(float(match.group(1)) * _UNITS[unit])
    if number < minimum:
        raise InvalidOptionError(f"{name} {value!r} is too small; expected at least {minimum:,} bytes")
    return number
