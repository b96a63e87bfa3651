"""The report's heuristic-quality section: each heuristic's h against the true distance h*
on the solved instances' optimal paths, and where IDA*'s nodes go by f-layer.

h* is known on every board of an optimal path: the start board's is the optimal cost and
the board after k moves has cost - k (:func:`..quality.path_boards`). Each distinct start
board of a puzzle and goal contributes one path (the first in the order of the moves' text,
as :func:`..quality.solved_paths` takes it). A heuristic's
pattern databases are read from the store (``--store`` of the sweep: ``$TILESWEEP_STORE``
or the per-user cache), never built; one that cannot be evaluated here (tables missing, a
plugin not loaded) is named with the reason.
"""

from __future__ import annotations

import pandas as pd
from bokeh.models import ColumnDataSource, HoverTool, Legend
from bokeh.palettes import Category10_10

from tilesweep.solver.board import goal_tiles
from tilesweep.solver.errors import TilesweepError

from ..quality import PathBoards, agreement, heuristic_values_of, parse_tiles, path_boards
from .data import ReportData
from .layers import layer_shares
from .page import frame_table
from .plots import _figure, colours

QUALITY_COLUMNS = ["puzzle", "heuristic", "instances", "mean h0", "mean h0 / h*", "h0 = h* (%)", "path boards",
                   "mean h / h*", "h = h* (%)", "h > h*"]


def solved_paths(data: ReportData) -> dict[tuple[int, str], PathBoards]:
    """The optimal paths of the solved rows, one per distinct start board, by (size, goal)."""
    rows = data.con.sql("SELECT DISTINCT ON (size, goal, tiles) size, goal, tiles, moves FROM results "
                        "WHERE status = 'solved' AND moves IS NOT NULL ORDER BY size, goal, tiles, moves").df()
    paths = {}
    for (size, goal), group in rows.groupby(["size", "goal"], sort=True):
        goal_t = goal_tiles(str(goal), int(size))
        paths[int(size), str(goal)] = path_boards(parse_tiles(group["tiles"].tolist(), int(size)),
                                                  group["moves"].tolist(), int(size), goal_t)
    return paths


def _tables(name: str, size: int, goal: tuple[int, ...]) -> tuple:
    """The pattern databases of heuristic ``name`` from the store, never built."""
    from tilesweep.pdb_store import open_store, tables_for
    from tilesweep.solver.heuristics import parse_heuristic

    spec = parse_heuristic(name, size, goal)
    return tables_for(spec, size, goal, open_store(None), build=False) if spec.is_pdb else ()


def path_quality(data: ReportData) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Per puzzle, goal and heuristic of the rows: h against h* on the start boards and on
    every board of the optimal paths (:data:`QUALITY_COLUMNS`); the mean h per h* (columns
    ``label``, ``distance``, ``mean_h``, ``boards``) for the figure; the heuristics left out,
    each with its reason."""
    table, curves, skipped = [], [], []
    for (size, goal), paths in solved_paths(data).items():
        goal_t = goal_tiles(goal, size)
        mine = data.rows[(data.rows["size"] == size) & (data.rows["goal"].astype(str) == goal)]
        for name in dict.fromkeys(mine["heuristic"].astype(str)):
            if name == "none":
                continue
            puzzle = f"{size * size - 1}-puzzle" + ("" if goal == "blank-last" else f" ({goal})")
            try:
                h = heuristic_values_of(name, size, goal_t, _tables(name, size, goal_t), paths.boards)
            except TilesweepError as err:
                skipped.append(f"{name} on the {puzzle}: {err}")
                continue
            start, every = agreement(h[paths.start], paths.distances[paths.start]), agreement(h, paths.distances)
            table.append([puzzle, name, start.boards, start.mean_h, start.mean_ratio, 100 * start.exact_share,
                          every.boards, every.mean_ratio, 100 * every.exact_share, every.overestimates])
            by_distance = pd.DataFrame({"distance": paths.distances, "h": h}).groupby("distance")["h"]
            curves.append(pd.DataFrame({"label": f"{puzzle} {name}", "distance": by_distance.mean().index,
                                        "mean_h": by_distance.mean().to_numpy(), "boards": by_distance.size()}))
    curve = pd.concat(curves, ignore_index=True) if curves else pd.DataFrame(columns=["label", "distance",
                                                                                       "mean_h", "boards"])
    return pd.DataFrame(table, columns=QUALITY_COLUMNS), curve, skipped


def against_distance(curve: pd.DataFrame):
    """Mean h per true distance h*, one line per puzzle and heuristic, beside the diagonal h = h*."""
    fig = _figure("h-against-distance", "h against the true distance on the optimal paths (mean h per h*)",
                  "true distance h* (moves left)", "mean h", width=940)
    top = float(curve["distance"].max()) if len(curve) else 1.0
    legend = [("h = h*", [fig.line([0, top], [0, top], color="#888", line_dash="dashed")])]
    for i, (label, rows) in enumerate(curve.groupby("label", sort=False)):
        source = ColumnDataSource(dict(distance=rows["distance"].to_numpy(float), mean_h=rows["mean_h"].to_numpy(),
                                       boards=rows["boards"].to_numpy()))
        colour = Category10_10[i % 10]
        line = fig.line("distance", "mean_h", source=source, color=colour, line_width=2)
        dots = fig.scatter("distance", "mean_h", source=source, color=colour, size=4)
        fig.add_tools(HoverTool(renderers=[dots], tooltips=[("", label), ("h*", "@distance"),
                                                           ("mean h", "@mean_h{0.00}"), ("boards", "@boards{0,0}")]))
        legend.append((label, [line, dots]))
    fig.add_layout(Legend(items=legend, click_policy="hide"), "right")
    return fig


def layers_figure(data: ReportData, layers: pd.DataFrame):
    """The share of each configuration's IDA* nodes generated in each f-layer (log y)."""
    fig = _figure("f-layers", "IDA*: where the nodes go (share of nodes generated per iteration)",
                  "f bound of the iteration minus the optimal cost (0: the last iteration)",
                  "share of the nodes generated", y_log=True, width=940)
    legend = []
    for config, rows in layers.groupby("config", sort=False, observed=True):
        source = ColumnDataSource(dict(layer=rows["layer"].to_numpy(float), share=rows["share"].to_numpy(),
                                       nodes=rows["nodes"].to_numpy(), runs=rows["runs"].to_numpy()))
        colour = colours(data)[config]
        line = fig.line("layer", "share", source=source, color=colour, line_width=2)
        dots = fig.scatter("layer", "share", source=source, color=colour, size=5)
        fig.add_tools(HoverTool(renderers=[dots], tooltips=[("configuration", config), ("layer", "@layer"),
                                                           ("share", "@share{0.0000%}"), ("nodes", "@nodes{0,0}"),
                                                           ("runs", "@runs{0,0}")]))
        legend.append((config, [line, dots]))
    if legend:
        fig.add_layout(Legend(items=legend, click_policy="hide"), "right")
    return fig


def quality_section(data: ReportData) -> tuple[dict, dict]:
    """The section's bokeh figures by name and its template context (``quality``)."""
    table, curve, skipped = path_quality(data)
    layers = layer_shares(data)
    figures = {}
    if len(curve):
        figures["h-against-distance"] = against_distance(curve)
    if len(layers):
        figures["f-layers"] = layers_figure(data, layers)
    return figures, {"table": frame_table(table), "rows": len(table), "skipped": skipped,
                     "has_paths": "h-against-distance" in figures, "has_layers": "f-layers" in figures,
                     "last_layer": _last_share(layers)}


def _last_share(layers: pd.DataFrame) -> list[tuple[str, str]]:
    """Per configuration, the share of its nodes in the iterations with bounds within 2 of
    the optimal cost (``"83.6%"``)."""
    last = layers[layers["layer"] >= -2].groupby("config", sort=False, observed=True)["share"].sum()
    return [(str(config), f"{share:.1%}") for config, share in last.items()]

