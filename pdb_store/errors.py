"""Errors of the pattern-database store; each names the file and says the fix."""

from tilesweep.solver.errors import TilesweepError


class MissingTableError(TilesweepError, KeyError):
    """A pattern-database table that the store does not hold (never built, or deleted)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class CorruptTableError(TilesweepError, ValueError):
    """A table or manifest that fails verification: truncated, altered, wrong shape or dtype."""


class StoreError(TilesweepError, ValueError):
    """A store path that cannot be used (not a directory), or a closed store."""
