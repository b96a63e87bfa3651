"""The package's layers (docs/design.md: solver imports nothing else of tilesweep,
pdb_store only solver, Dask only in cluster and the interfaces) and no import cycle inside any package, checked by
import-linter with the contracts in pyproject.toml (``lint-imports`` prints the same report)."""

import logging
import re
from pathlib import Path

from importlinter import cli

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def contracts() -> str:
    text = PYPROJECT.read_text()
    return text[text.index("[tool.importlinter]"):]


def lint_imports(**options) -> int:
    """import-linter's check in this process. Its logging set-up (``dictConfig``) disables
    every logger that exists, tilesweep's among them, so later tests would see no warning:
    each logger's flag is put back."""
    loggers = [logger for logger in logging.root.manager.loggerDict.values() if isinstance(logger, logging.Logger)]
    disabled = [logger.disabled for logger in loggers]
    try:
        return cli.lint_imports(**options)
    finally:
        for logger, flag in zip(loggers, disabled):
            logger.disabled = flag


def test_the_contracts_are_kept():
    assert lint_imports(config_filename=str(PYPROJECT), no_cache=True) == 0


def test_the_layer_contract_is_not_vacuous(tmp_path):
    """Layers in the opposite order are broken, so the check sees the real imports."""
    layers = re.search(r"^layers = \[(.*)\]$", contracts(), re.M).group(1)
    upside_down = ", ".join(reversed(layers.split(", ")))
    config = tmp_path / "upside-down.toml"
    config.write_text(contracts().replace(layers, upside_down))
    assert lint_imports(config_filename=str(config), no_cache=True) == 1
