"""A planned sweep's IDA* cost before it runs (``sweep --dry-run``): per IDA* heuristic, the
nodes KRE and CDP predict per instance (:mod:`.predict`, as ``tilesweep predict`` computes
them) and the CPU-hours at the speed IDA* measures on this machine.

A prediction needs each instance's optimal length (the bound of its last iteration): the
bundled sets publish them, and every 8-puzzle's is looked up in a breadth-first search of all
its states (under a second); other sets' are unknown, and they are not predicted. At most
:data:`PLAN_INSTANCES` instances are predicted (a seeded sample), the totals scaled to the set.

By default only what is cheap is done: distributions read from the store, or computed exactly
on the 8-puzzle (seconds, once per store), pattern databases read from the store. With
``sample``, missing distributions are sampled (a minute or more on the 15-puzzle, kept in the
store) and missing tables built.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tilesweep.pdb_store.errors import MissingTableError

from .predict import EXACT_SIZES, NotSampledError, Sampling, SetForecast, forecast_heuristic

PLAN_INSTANCES = 100         # instances predicted per heuristic (~5 ms each with CDP on the 8-puzzle)
PLAN_RATE_NODES = 5_000_000  # nodes of IDA* that measure the speed (a fraction of a second)


@dataclass(frozen=True)
class Unpredicted:
    """A heuristic of the plan that is not predicted, and why."""

    heuristic: str
    reason: str


def optimal_lengths(spec, boards) -> tuple[list[int], str] | None:
    """Each board's optimal length and where it comes from, or None where it is unknown."""
    from .published import published_figures
    from .quality import distances_of

    bundled = spec.instances.bundled
    if bundled is not None:
        lengths = [p.length for p in published_figures(bundled.file).values()][: len(boards)]
        return lengths, f"the lengths published with {spec.instances}"
    if spec.size in EXACT_SIZES:
        tiles = np.array([b.tiles for b in boards], dtype=np.int8)
        return distances_of(tiles, spec.size, spec.goal_tuple).tolist(), "a breadth-first search of every state"
    return None


def _chosen(count: int, limit: int) -> list[int]:
    """All of ``count`` instances, or ``limit`` of them drawn uniformly (seed 0), in order."""
    if count <= limit:
        return list(range(count))
    return np.sort(np.random.default_rng(0).choice(count, limit, replace=False)).tolist()


def forecast_plan(spec, store, sample: bool = False, sampling: Sampling | None = None, limit: int = PLAN_INSTANCES,
                  rate_nodes: int = PLAN_RATE_NODES) -> tuple[list[SetForecast | Unpredicted], str]:
    """Each IDA* heuristic of ``spec``: its :class:`SetForecast` or why it is :class:`Unpredicted`;
    and where the optimal lengths come from."""
    from .instances import make_instances
    from .published import SEARCH_NODES, published_nodes

    sampling = sampling or Sampling()
    if "idastar" not in spec.algorithms:
        return [], ""
    boards = make_instances(spec)
    found = optimal_lengths(spec, boards)
    if found is None:
        why = (f"the optimal lengths of {spec.instances} {spec.size * spec.size - 1}-puzzles are unknown, and a "
               "prediction needs them (known for korf100, korf50-24 and every 8-puzzle)")
        return [Unpredicted(h, why) for h in spec.heuristics], ""
    lengths, source = found
    chosen = _chosen(len(boards), limit)
    published = published_nodes(str(spec.instances)) if str(spec.instances) in SEARCH_NODES else None
    out = []
    for heuristic in spec.heuristics:
        try:
            out.append(forecast_heuristic(spec, heuristic, [boards[i] for i in chosen], [lengths[i] for i in chosen],
                                          store, sampling, rate_nodes, published, indices=chosen, of=len(boards),
                                          build=sample, sample=sample))
        except NotSampledError as err:
            out.append(Unpredicted(heuristic, f"{err}; --predict samples them (once, kept in the store)"))
        except MissingTableError as err:
            out.append(Unpredicted(heuristic, f"{err}; --predict builds it"))
    return out, source
