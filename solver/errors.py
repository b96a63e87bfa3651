"""The error vocabulary shared by every tilesweep package.

Library code raises these; only ``cli.py`` turns them into messages and exit codes.
Each subclass also inherits the builtin a caller would expect, so ``except ValueError``
keeps working for users of the library.
"""


class TilesweepError(Exception):
    """Base class of every error tilesweep raises on purpose."""


class InvalidBoardError(TilesweepError, ValueError):
    """Tiles, size or goal that do not describe a sliding-tile board."""


class InvalidOptionError(TilesweepError, ValueError):
    """An option value outside what the command accepts (budget, chunk size, ...)."""


class UnknownNameError(TilesweepError, KeyError):
    """An algorithm, heuristic or partition name that no registry knows."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


#: The errors that mean the input was bad (exit 2 on the command line, HTTP 400 in the web UI).
BAD_INPUT = (InvalidBoardError, InvalidOptionError, UnknownNameError)


def quoted(value, limit: int = 100) -> str:
    """``repr(value)`` for a one-line message: cut to ``limit`` characters, with its length said."""
    try:
        text = repr(value)
    except ValueError:  # an int of more digits than Python turns into text
        return f"<an integer of {value.bit_length():,} bits>"
    if len(text) <= limit:
        return text
    length = len(value) if isinstance(value, (str, bytes)) else len(text)
    return f"{text[:limit - 4]}...{text[-1]} ({length:,} characters)"
