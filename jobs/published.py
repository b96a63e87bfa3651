"""Published figures of the bundled instance sets, set beside a sweep's results.

Korf (1985), Table 1, gives for each of his 100 15-puzzles the optimal solution length, the
nodes IDA* with Manhattan distance generated and the initial estimate; Korf & Felner (2002)
give the optimal length of each of their 50 24-puzzles. The bundled files carry these
figures as a comment after each board (``# optimal 57, nodes 276361933, h0 41``).

A result row is matched to a published board by its size, goal and tiles, so a sweep of an
instances file holding these boards is matched as well as one of ``korf100``. A length
applies to every configuration that solved the board (an optimal search must find it); a
node count only to the configuration it was published for, IDA* with Manhattan distance and
parent pruning, whose counts tilesweep's node accounting reproduces (a sweep row solved
again by parallel IDA*, ``--parallel-above``, counts as serial IDA* does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pandas as pd

from .sources import BUNDLED

#: The configuration a published node count was measured with: (algorithm, heuristic, pruning).
COUNTED = ("idastar", "manhattan", "parent")
CITATIONS = {"korf100": "Korf 1985, Table 1", "korf50-24": "Korf & Felner 2002"}
_FIGURE = re.compile(r"(optimal|nodes|h0) (\d+)")


@dataclass(frozen=True)
class Published:
    """One board's published figures (``None`` where the source gives none)."""

    tiles: tuple[int, ...]
    length: int
    nodes: int | None = None
    h0: int | None = None


def published_figures(path: str | Path) -> dict[int, Published]:
    """The figures a bundled file gives after its boards, by instance id (boards without
    a published length are left out)."""
    out = {}
    for line in Path(path).read_text().splitlines():
        board, _, comment = line.partition("#")
        figures = {name: int(value) for name, value in _FIGURE.findall(comment)}
        if board.strip() and "optimal" in figures:
            number, *tiles = map(int, board.split())
            out[number] = Published(tuple(tiles), figures["optimal"], figures.get("nodes"), figures.get("h0"))
    return out


@cache
def published_table() -> pd.DataFrame:
    """Every published board: ``size``, ``goal``, ``tiles`` (as result rows write them),
    ``source`` (its citation), ``number`` (the board's number there), ``published_length`` and
    ``published_nodes`` (nullable)."""
    rows = []
    for name, bundled in BUNDLED.items():
        for number, board in published_figures(bundled.file).items():
            rows.append({"size": bundled.size, "goal": bundled.goal, "tiles": " ".join(map(str, board.tiles)),
                         "source": CITATIONS[name], "number": number, "published_length": board.length,
                         "published_nodes": board.nodes})
    return pd.DataFrame(rows).astype({"published_nodes": "Int64"})


#: Node counts published for a configuration other than :data:`COUNTED`, per bundled set:
#: (file, algorithm, heuristic, pruning, citation). Korf & Felner count without the start
#: board (tilesweep's count of the same search is one more; jobs/data/SOURCE.txt).
SEARCH_NODES = {"korf50-24": (Path(__file__).parent / "data" / "korf50-24-nodes.txt", "idastar",
                              "pdb:6-6-6-6+reflect", "parent", "Korf & Felner 2002")}


def published_nodes(name: str) -> dict[int, int]:
    """Instance id -> the published node count of bundled set ``name`` (:data:`SEARCH_NODES`)."""
    path = SEARCH_NODES[name][0]
    lines = (line.split() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#"))
    return {int(i): int(n) for i, n in lines}
