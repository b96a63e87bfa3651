"""jobs/report/method_looks.py: one look per prediction method, told apart in every way a
print can lose (colour, marker), and the prediction table's one ratio formatter."""

import math

import pytest

from tilesweep.jobs.predict import METHODS
from tilesweep.jobs.report.method_looks import LOOKS, label, look, ratio_text


def test_every_method_has_its_own_label_colour_and_markers():
    assert set(METHODS) <= set(LOOKS)
    for field in ("label", "colour", "bokeh_marker", "mpl_marker"):
        values = [getattr(shown, field) for shown in LOOKS.values()]
        assert len(set(values)) == len(values), field


def test_an_unknown_method_is_named_by_its_key():
    assert label("cdp3") == "cdp3" and look("cdp3").colour == "#000000"


@pytest.mark.parametrize("value, text", [
    (1.8391, "1.84"), (2.17, "2.17"), (2.0, "2.00"), (0.46712, "0.467"), (0.1, "0.100"), (18.44, "18.4"),
    (312.4, "312"), (999.4, "999"), (999.7, "1,000"), (12345.6, "12,346"), (0.0, "0.00"),
    (float("nan"), "–"), (None, "–"),
])
def test_ratios_keep_three_significant_digits(value, text):
    assert ratio_text(value) == text


def test_three_digits_survive_every_decade():
    for exponent in range(-3, 3):
        text = ratio_text(1.23456 * 10**exponent)
        digits = text.replace(",", "").replace(".", "").lstrip("0")
        assert len(digits) == 3, text
        assert math.isclose(float(text), 1.23 * 10**exponent, rel_tol=1e-9), text
