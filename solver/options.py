"""Validation of the numeric options every command shares (sizes, budgets, counts)."""

from __future__ import annotations

import re
import sys

from .errors import InvalidOptionError, quoted
from .geometry import SIZES

# Node counts are int64 in the kernels (at most 9.2e18): budgets stop at a round number below
MAX_NODES = 10**18


def whole_number(name: str, value, minimum: int, maximum: int | None = None) -> int:
    """``value`` (an int or its text) as an int from ``minimum`` to ``maximum`` (no upper
    bound when None), else an error quoting it."""
    expected = f"from {minimum} to {maximum:,}" if maximum is not None else f">= {minimum}"
    if isinstance(value, bool) or not isinstance(value, int):
        text = value.strip() if isinstance(value, str) else ""
        if not re.fullmatch(r"-?\d+", text):  # a negative one is "too small", below
            raise InvalidOptionError(f"{name} {quoted(value)} is not a whole number; expected an integer >= {minimum}")
        try:
            value = int(text)
        except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
            raise InvalidOptionError(f"{name} {quoted(value)} is too large; expected an integer {expected} "
                                     f"of at most {sys.get_int_max_str_digits()} digits") from None
    if maximum is not None and value > maximum:
        raise InvalidOptionError(f"{name} {quoted(value)} is too large; expected an integer {expected}")
    if value < minimum:
        raise InvalidOptionError(f"{name} {quoted(value)} is too small; expected an integer >= {minimum}")
    return int(value)


# Deadlines are whole nanoseconds in an int64: a number of seconds stops at a round number of years
MAX_SECONDS = 1e9


def parse_seconds(name: str, value, allow_zero: bool = False, maximum: float = MAX_SECONDS,
                  why: str = "about 31 years") -> float:
    """``value`` (a number or its text) as seconds, > 0 (>= 0 with ``allow_zero``) and at most
    ``maximum`` (:data:`MAX_SECONDS`; ``why`` says what sets it), else an error quoting it."""
    try:
        number = float(value)
    except OverflowError:  # an int beyond any float
        number = float("inf")
    except (TypeError, ValueError):
        number = float("nan")
    low = 0 <= number if allow_zero else 0 < number
    if isinstance(value, bool) or not (low and number <= maximum):
        raise InvalidOptionError(f"{name} {quoted(value)} is not a number of seconds; expected a number "
                                 f"{'>=' if allow_zero else '>'} 0 and at most {maximum:,.10g} ({why})")
    return number


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


# Split depths giving a few thousand roots with parent pruning, by the blank's start cell:
# 3,448-4,768 at depth 14 on 3x3, 4,666-7,844 at 11 on 4x4, 1,996-4,768 at 9 on 5x5.
DEFAULT_SPLIT_DEPTH = {3: 14, 4: 11, 5: 9}
MAX_SPLIT_DEPTH = 24


def check_split_depth(depth, size: int | None) -> int:
    """``--split-depth`` (an int or its text; None: the size's :data:`DEFAULT_SPLIT_DEPTH`)
    as an int from 1 to 24."""
    if depth is None:
        return DEFAULT_SPLIT_DEPTH[size]
    depth = whole_number("split-depth", depth, 1)
    if depth > MAX_SPLIT_DEPTH:
        raise InvalidOptionError(f"split-depth {depth!r} is too large; expected an integer from 1 to "
                                 f"{MAX_SPLIT_DEPTH}")
    return depth
