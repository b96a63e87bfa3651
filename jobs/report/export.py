"""A headless Chromium driven through Selenium, to look at the report and the web UI as a browser shows them.

The system's browser and driver (``/usr/bin/chromium`` and ``/usr/bin/chromedriver``,
Debian's packages; nothing is downloaded). ``$TILESWEEP_CHROMIUM`` and
``$TILESWEEP_CHROMEDRIVER`` name other paths. Figure files are drawn by :mod:`.figures`.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager

from tilesweep.solver.errors import TilesweepError


class BrowserUnavailableError(TilesweepError):
    """No Chromium or chromedriver to drive."""


def browser_paths() -> tuple[str, str]:
    """(chromium, chromedriver): from the environment, else found on PATH."""
    chromium = os.environ.get("TILESWEEP_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    driver = os.environ.get("TILESWEEP_CHROMEDRIVER") or shutil.which("chromedriver")
    if not chromium or not driver:
        raise BrowserUnavailableError("Chromium and chromedriver are needed (Debian: apt-get install chromium "
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
        raise BrowserUnavailableError("the Python package selenium is needed (pip install selenium)") from None
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
