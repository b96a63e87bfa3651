"""``report --figures DIR``: the report's figures as PNG or SVG files, for papers.

bokeh renders them in the system's headless Chromium through Selenium
(``/usr/bin/chromium`` and ``/usr/bin/chromedriver``, Debian's packages; nothing is
downloaded). ``$TILESWEEP_CHROMIUM`` and ``$TILESWEEP_CHROMEDRIVER`` name other paths.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

from bokeh.io import export_png, export_svg
from bokeh.models import Plot

from tilesweep.solver.errors import InvalidOptionError, TilesweepError

FORMATS = ("png", "svg")


class BrowserUnavailableError(TilesweepError):
    """No Chromium or chromedriver to render figures with."""


def browser_paths() -> tuple[str, str]:
    """(chromium, chromedriver): from the environment, else found on PATH."""
    chromium = os.environ.get("TILESWEEP_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    driver = os.environ.get("TILESWEEP_CHROMEDRIVER") or shutil.which("chromedriver")
    if not chromium or not driver:
        raise BrowserUnavailableError("--figures needs Chromium and chromedriver (Debian: apt-get install chromium "
                                      "chromium-driver), and the Python package selenium")
    return chromium, driver


@contextmanager
def chromium_driver(width: int = 1600, height: int = 1200, args: tuple[str, ...] = (), logs: tuple[str, ...] = ()):
    """A headless Chromium WebDriver on the system's browser and driver; ``args`` are
    extra command-line switches, ``logs`` the log types to keep (``browser``, ``performance``)."""
    chromium, driver_path = browser_paths()
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise BrowserUnavailableError("--figures needs the Python package selenium (pip install selenium)") from None
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", *args):
        options.add_argument(arg)
    if logs:
        options.set_capability("goog:loggingPrefs", {kind: "ALL" for kind in logs})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def plots_of(figures: dict) -> dict[str, Plot]:
    """The plots among the report's roots (a panel's plot is exported without its widgets)."""
    out = {}
    for name, model in figures.items():
        plot = model if isinstance(model, Plot) else next((m for m in model.select({"type": Plot})), None)
        if plot is not None:
            out[name] = plot
    return out


def export_figures(figures: dict, folder: str | Path, fmt: str = "png") -> list[Path]:
    """Write each plot as ``folder/NAME.png`` (or ``.svg``); return the paths."""
    if fmt not in FORMATS:
        raise InvalidOptionError(f"figure format {fmt!r} is not known; expected png or svg")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with chromium_driver() as driver:
        for name, plot in plots_of(figures).items():
            path = folder / f"{_file_name(name)}.{fmt}"
            plot.toolbar_location = None
            plot.sizing_mode = "fixed"  # its own width, not the page's
            if fmt == "svg":
                plot.output_backend = "svg"
                export_svg(plot, filename=str(path), webdriver=driver)
            else:
                export_png(plot, filename=str(path), webdriver=driver)
            written.append(path)
    return written


def _file_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
