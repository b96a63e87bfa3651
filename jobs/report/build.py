"""``tilesweep report``: read sweeps, build the figures and tables, write one HTML file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from tilesweep.jobs.parts import check_folder
from tilesweep.pdb_store.files import OutputTargetError, atomic_write, check_target
from tilesweep.solver.errors import InvalidOptionError

from ..clocks import DEFAULT as DEFAULT_CLOCK
from . import plots
from .compare import Comparison, compare, load_pairs_side
from .data import ReportData, coverage_table, load, published_agreement
from .page import SPEC_FIELDS, frame_table, render, script_json, sweep_header, table_data, table_items
from .plotted import ITERATION_INSTANCES, baseline_of, baseline_ratio, before_after
from .prediction_section import Predictions, prediction_section, predictions
from .quality import quality_section
from .sweeps import open_sweeps
from .tables import published_rows


@dataclass(frozen=True)
class Report:
    """What a report was built from and where it went."""

    path: Path
    data: ReportData
    figures: dict
    comparison: Comparison | None
    bytes: int
    predictions: Predictions  # the static figures draw these too (report --figures), not a second computation


def build_figures(data: ReportData) -> tuple[dict, list[str], bool]:
    """Every bokeh root of the page by name; the scatter names; whether IDA* logs exist."""
    figures, scatter_names = {}, []
    for config in data.configs:
        base = baseline_of(data, config)
        if base is None:
            continue
        for value in ("nodes_generated", "seconds"):
            fig = plots.scatter(data, config, base, value)
            figures[fig.name] = fig
            scatter_names.append(fig.name)
    for fig in (plots.by_length(data), plots.coverage(data, "nodes_generated"), plots.coverage(data, "seconds"),
                plots.ebf_distribution(data)):
        figures[fig.name] = fig
    panel, has_iterations = plots.iterations(data)
    if has_iterations:
        figures[panel.name] = panel
    return figures, scatter_names, has_iterations


def main_table(data: ReportData) -> pd.DataFrame:
    """The coverage table with each configuration's node ratio against its baseline beside
    it: geometric mean, 95 % interval and p over the instances both solved."""
    ratios = pd.DataFrame([baseline_ratio(data, config) for config in data.configs], index=data.configs)
    interval = ["–" if pd.isna(lo) else f"{lo:.3g}–{hi:.3g}"
                for lo, hi in zip(ratios["ratio_low"], ratios["ratio_high"], strict=True)]
    return coverage_table(data).assign(**{f"node_ratio_vs_{data.baseline}": ratios["ratio"],
                                          "node_ratio_95%": interval, "node_ratio_p": ratios["p"]})


def published_context(data: ReportData) -> dict | None:
    """The published figures beside ours, when any board is a published one: per configuration
    (how many agree) and per run (published length and nodes, ours, the differences)."""
    agreement = published_agreement(data)
    if agreement is None:
        return None
    runs = published_rows(data)
    return {"agreement": frame_table(agreement.reindex(data.configs), "configuration"),
            "runs": frame_table(runs.drop(columns=["source"])),
            "sources": ", ".join(dict.fromkeys(runs["source"].astype(str)))}


def comparison_context(data: ReportData, threshold: float) -> tuple[Comparison, dict]:
    """``compare`` of the two sweeps of ``data`` (time ratios by its clock) and its tables for the page."""
    old, new = data.sweeps
    result = compare(load_pairs_side([old]), load_pairs_side([new]), threshold,
                     names=(str(old.folder), str(new.folder)), clock=data.clock)
    figures = {}
    for before, after in before_after(data, old.name, new.name):
        for value in ("nodes_generated", "seconds"):
            fig = plots.scatter(data, after, before, value, name=f"before-after-{value}-{after}",
                                changed=value == "nodes_generated")
            figures[fig.name] = fig
    return result, {"old": old.name, "new": new.name, "threshold": f"{threshold:.0%}", "figures": figures,
                    "configurations": frame_table(result.configurations),
                    "changes_json": script_json(table_data(result.changes)),
                    "change_count": len(result.changes)}


def default_out(sweeps) -> Path:
    """``SWEEP/report.html`` for one sweep, else ``report.html`` here."""
    return sweeps[0].folder / "report.html" if len(sweeps) == 1 else Path("report.html")


def check_out(path: Path) -> None:
    """A report file can be written at ``path`` (its folder is created if needed), checked
    before any work; else :class:`InvalidOptionError` naming it (the atomic writer's rule:
    a regular file or a new name, never a folder, FIFO, device or symbolic link)."""
    check_folder(path.parent, "--out")
    try:
        check_target(path)
    except OutputTargetError as err:
        raise OutputTargetError(f"--out {err}") from None


CLOCK_NOTES = {"cpu": "CPU seconds of the thread that solved each run (--clock wall: wall seconds)",
               "wall": "wall seconds from the start of each search to its end (--clock cpu: CPU seconds)"}


def build_report(paths: list[str], out: str | None = None, baseline: str | None = None,
                 with_compare: bool = False, threshold: float = 0.05, clock: str = DEFAULT_CLOCK) -> Report:
    """Build the report of the sweeps ``paths`` into ``out`` (written atomically), its
    times by ``clock`` (``cpu`` or ``wall``)."""
    from tilesweep import __version__

    sweeps = open_sweeps(paths)
    if with_compare and len(sweeps) != 2:
        raise InvalidOptionError(f"--compare needs exactly two sweeps (OLD NEW); got {len(sweeps)}")
    path = Path(out) if out else default_out(sweeps)
    check_out(path)
    data = load(sweeps, baseline, clock)
    figures, scatter_names, has_iterations = build_figures(data)
    quality_figures, quality = quality_section(data)
    figures.update(quality_figures)
    predicted = predictions(data)
    prediction_figures, prediction = prediction_section(predicted)
    figures.update(prediction_figures)
    comparison, compare_ctx = comparison_context(data, threshold) if with_compare else (None, None)
    if compare_ctx:
        figures.update(compare_ctx["figures"])
        compare_ctx["figure_names"] = list(compare_ctx.pop("figures"))
    names = ", ".join(s.name for s in sweeps)
    _, table_note = table_items(data)
    context = {"title": f"tilesweep report: {names}", "version": __version__, "baseline": data.baseline,
               "sweeps": sweep_header(data), "spec_fields": SPEC_FIELDS,
               "coverage": frame_table(main_table(data), "configuration"), "published": published_context(data),
               "scatter_names": scatter_names,
               "has_iterations": has_iterations, "iteration_count": ITERATION_INSTANCES,
               "comparison": compare_ctx, "table_note": table_note, "clock_note": CLOCK_NOTES[clock],
               "seconds_label": data.seconds_label, "quality": quality,
               "prediction": prediction}
    html = render(data, figures, context)
    atomic_write(path, lambda handle: handle.write(html.encode("utf-8")))
    return Report(path, data, figures, comparison, len(html.encode()), predicted)
