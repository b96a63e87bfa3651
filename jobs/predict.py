"""IDA*'s nodes predicted from a heuristic's distributions (KRE and CDP, :mod:`solver.kre`,
:mod:`solver.cdp`), for the instances of a sweep or a spec, beside what a sweep measured.

A :class:`Model` holds what the predictions of one (heuristic, size, goal, pruning) need:
its distributions, exact over every 8-puzzle state or sampled from ``sample`` uniform random
states with ``seed`` (:mod:`solver.hdist`), read from the store or sampled and kept there
(:mod:`pdb_store.distributions`). :func:`predict_iterations` predicts each IDA* iteration of
an instance: KRE from the root's blank cell, CDP (one and two steps) from its h.

Against a sweep (:func:`measured_iterations`), the compared iterations are the *completed*
ones: the last stops at its first solution (or a budget), so its count is partial and it is
left out. Each iteration's measured count is the nodes it generated with the root added to
every iteration after the first (tilesweep counts the root once per solve; a prediction
counts it in every iteration).

For a set not yet run (:func:`set_cost`), each instance's iterations run from its h to its
optimal length (published for the bundled sets, else given), in steps of 2 where every move
changes h by an odd amount (then f keeps its parity), else 1; the last iteration is counted
in full, so the set's figure is an upper bound in that respect.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from tilesweep.solver.bruteforce import tree
from tilesweep.solver.cdp import cdp, conditionals
from tilesweep.solver.errors import InvalidOptionError, TilesweepError
from tilesweep.solver.fsm import Pruning, parse_pruning
from tilesweep.solver.hdist import (
    TILT_STEPS,
    TILTS,
    Distributions,
    all_states,
    exact_distributions,
    random_states,
    sampled_distributions,
    tilted_states,
)
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
from tilesweep.solver.kre import kre
from tilesweep.solver.search import heuristic_values
from tilesweep.solver.truncation import child_counts, epsilons, state_groups, tree_groups, truncate

EXACT_SIZES = (3,)           # every state is enumerated (181,440 on the 8-puzzle)
DEFAULT_SAMPLE = 1_000_000   # states sampled on larger boards
DEFAULT_SEED = 0
DEFAULT_TILTED = 200_000     # tilted states for the conditional tables (solver.hdist.tilted_states)
EPSILONS = ("off", "states", "trees")  # how cdp-eps chooses its epsilons (solver.truncation), or none
TREE_STARTS = 500            # --epsilon trees: uniform random start states (seed + 2) searched for real
TREE_SLACKS = (0, 1, 2, 3)   # their iterations: thresholds h0 + step x slack
METHODS = ("kre", "cdp", "cdp2", "cdp-eps")  # cdp-eps: CDP epsilon-truncated (solver.truncation), when asked


class NotSampledError(TilesweepError, LookupError):
    """A heuristic's sampled distributions are not in the store and sampling was not asked for."""


@dataclass(frozen=True)
class Sampling:
    """How a larger board's distributions are sampled: uniform ``states`` drawn with
    ``seed``, and ``tilted`` states for the conditional tables (0: none)."""

    states: int = DEFAULT_SAMPLE
    seed: int = DEFAULT_SEED
    tilted: int = DEFAULT_TILTED


@dataclass
class Model:
    """A heuristic's distributions and what predictions derive from them."""

    heuristic: str
    size: int
    goal: tuple[int, ...]
    pruning: Pruning
    H: object
    dist: Distributions
    from_store: bool
    epsilon: np.ndarray | None = None   # per (blank cell, h): CDP's epsilon-truncation (cdp-eps), if asked
    epsilon_from: str = "off"           # how: EPSILONS

    @cached_property
    def conditionals(self) -> tuple[np.ndarray, np.ndarray, bool]:
        return conditionals(self.dist.step, self.dist.step2)

    @cached_property
    def truncated(self) -> np.ndarray:
        """The one-step fractions epsilon-truncated (:func:`solver.truncation.truncate`)."""
        return truncate(self.conditionals[0], self.epsilon)

    @property
    def bound_step(self) -> int:
        """2 where every sampled move changes h by an odd amount (f keeps its parity), else 1."""
        offsets = np.flatnonzero(self.dist.step.sum(axis=(0, 1, 2))) - self.dist.spread
        return 2 if len(offsets) and (offsets % 2 == 1).all() else 1

    def describe(self) -> str:
        d = self.dist
        if d.method == "exact":
            return f"exact over all {d.states:,} states{self._epsilon_text()}"
        tilted = f"; conditionals also over {d.tilted:,} tilted states" if d.tilted else ""
        return f"{d.states:,} uniform random states, seed {d.seed}{tilted}{self._epsilon_text()}"

    def _epsilon_text(self) -> str:
        if self.epsilon is None:
            return ""
        source = ("the same states" if self.epsilon_from == "states" else
                  f"the levels of {TREE_STARTS} random start states' first {len(TREE_SLACKS)} iterations")
        return (f"; cdp-eps: epsilon per blank cell and h from {source} (median {np.median(self.epsilon):.3g}, "
                f"largest {self.epsilon.max():.3g})")


def identity(heuristic: str, size: int, goal: tuple[int, ...], sampling: Sampling) -> dict:
    """What names a heuristic's distributions in the store."""
    spec = parse_heuristic(heuristic, size, goal)
    exact = size in EXACT_SIZES
    return {"heuristic": heuristic, "size": size, "goal": list(goal), "method": "exact" if exact else "sampled",
            "states": None if exact else sampling.states, "seed": None if exact else sampling.seed,
            "tilted": None if exact or not sampling.tilted else [sampling.tilted, list(TILTS), TILT_STEPS],
            "plugins": [list(p) for p in spec.plugins]}


def in_store(heuristic: str, size: int, goal: tuple[int, ...], store, sampling: Sampling = Sampling()) -> bool:
    """Whether ``store`` holds the distributions of ``heuristic`` (so a model costs a read)."""
    from tilesweep.pdb_store.distributions import identity_digest, read_entries
    return identity_digest(identity(heuristic, size, goal, sampling)) in read_entries(store.root)


def sampling_text(size: int, sampling: Sampling) -> str:
    """What a model of a ``size`` board is computed from, said before it is."""
    if size in EXACT_SIZES:
        return "every state, exactly"
    tilted = f" and {sampling.tilted:,} tilted ones" if sampling.tilted else ""
    return f"{sampling.states:,} uniform random states (seed {sampling.seed}){tilted}"


def sampled_boards(size: int, goal: tuple[int, ...], H, exact: bool, sampling: Sampling) -> np.ndarray:
    """The states a model's conditional tables count: every state, or the uniform and tilted
    ones drawn as :func:`solver.hdist.sampled_distributions` draws them (the same seeds)."""
    if exact:
        return all_states(size, goal)
    boards = random_states(size, goal, sampling.states, sampling.seed)
    if sampling.tilted:
        boards = np.concatenate([boards, tilted_states(size, goal, H, sampling.tilted, sampling.seed)])
    return boards


def model_epsilon(model: Model, sampling: Sampling, criterion: str) -> np.ndarray:
    """epsilon per (blank cell, h) of ``model``'s one-step table (:mod:`solver.truncation`):
    ``states``, from the states the table counts; ``trees``, from the levels of real IDA*
    iterations of :data:`TREE_STARTS` uniform random start states (seed ``sampling.seed + 2``)."""
    one = model.conditionals[0]
    if criterion == "states":
        boards = sampled_boards(model.size, model.goal, model.H, model.dist.method == "exact", sampling)
        groups = state_groups(child_counts(boards, model.size, model.H, model.dist.spread, one.shape[2]))
    else:
        starts = random_states(model.size, model.goal, TREE_STARTS, sampling.seed + 2)
        groups = tree_groups(starts, model.size, model.H, model.dist.spread, TREE_SLACKS, model.bound_step)
    return epsilons(one, groups)


def make_model(heuristic: str, size: int, goal: tuple[int, ...], tables, store, prune: str = "parent",
               sampling: Sampling = Sampling(), sample: bool = True, epsilon: str = "off") -> Model:
    """The :class:`Model` of ``heuristic`` (``tables``: its PDBs; ``store``: an open store).
    Without ``sample``, sampled distributions the store does not hold are
    :class:`NotSampledError` (exact ones, seconds on the 8-puzzle, are still computed).
    With ``epsilon`` ``states`` or ``trees`` (:func:`model_epsilon`), the model also predicts
    ``cdp-eps`` (its epsilons computed here each time: not kept in the store)."""
    if epsilon not in EPSILONS:
        raise InvalidOptionError(f"epsilon {epsilon!r} is not a way to choose epsilon; expected one of "
                                 f"{', '.join(EPSILONS)}")
    if sampling.states < 1000:
        raise InvalidOptionError(f"sample {sampling.states!r} is too small; expected at least 1000 states")
    spec = parse_heuristic(heuristic, size, goal)
    H = kernel_heuristic(spec, size, goal, tuple(tables))
    ident = identity(heuristic, size, goal, sampling)
    if not sample and ident["method"] != "exact" and not in_store(heuristic, size, goal, store, sampling):
        raise NotSampledError(f"the distributions of {heuristic!r} on the {size * size - 1}-puzzle are not in the "
                              f"store {store.root}; sampling them takes {sampling_text(size, sampling)}")

    def compute():
        if ident["method"] == "exact":
            return exact_distributions(size, goal, H)
        return sampled_distributions(size, goal, H, sampling.states, sampling.seed, sampling.tilted)

    dist, cached = store.distributions(ident, compute)
    model = Model(heuristic, size, goal, parse_pruning(prune, size), H, dist, cached)
    if epsilon != "off" and model.pruning.kind == "parent":
        model.epsilon, model.epsilon_from = model_epsilon(model, sampling, epsilon), epsilon
    return model


def h_of(model: Model, boards: np.ndarray) -> np.ndarray:
    """h of each row of ``boards`` under the model's heuristic."""
    return heuristic_values(np.asarray(boards, dtype=np.int8), model.size, model.H)


def predict_iterations(model: Model, tiles, bounds, depth: int = 0) -> dict[str, np.ndarray]:
    """Nodes generated predicted per iteration (``bounds``) from start ``tiles`` by each
    method (``cdp``/``cdp2`` only with parent pruning, their first ``depth`` levels searched
    for real; ``cdp2`` only where the two-step table was kept)."""
    t = tree(model.size, list(tiles).index(0), model.pruning)
    out = {"kre": kre(t, model.dist.cells, bounds)[0]}
    if model.pruning.kind == "parent":
        one, two, has_two = model.conditionals
        args = (t, tiles, model.size, model.H, one, two)
        out["cdp"] = cdp(*args, False, model.dist.spread, bounds, depth)
        if has_two:
            out["cdp2"] = cdp(*args, True, model.dist.spread, bounds, depth)
        if model.epsilon is not None:
            out["cdp-eps"] = cdp(t, tiles, model.size, model.H, model.truncated, two, False, model.dist.spread,
                                 bounds, depth)
    return out


def iterations_of(row) -> list[tuple[int, int]]:
    """(bound, nodes generated) of each iteration of a result row."""
    return [(int(it["bound"]), int(it["nodes_generated"])) for it in json.loads(row["iterations"])]


def measured_iterations(rows: pd.DataFrame, model: Model, depth: int = 0) -> pd.DataFrame:
    """One row per completed IDA* iteration of ``rows`` (one heuristic's solved IDA* rows):
    ``instance``, ``bound``, ``measured`` and each method's prediction."""
    frames = []
    for _, row in rows.iterrows():
        its = iterations_of(row)[:-1]  # the last stops at the first solution
        if not its:
            continue
        bounds = [b for b, _ in its]
        measured = [n + (1 if i else 0) for i, (_, n) in enumerate(its)]
        tiles = [int(t) for t in row["tiles"].split()]
        predicted = predict_iterations(model, tiles, bounds, depth)
        frames.append(pd.DataFrame({"instance": int(row["instance"]), "bound": bounds, "measured": measured,
                                    **predicted}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["instance", "bound", "measured"])


def idastar_rows(rows: pd.DataFrame, heuristic: str, prune: str) -> pd.DataFrame:
    """The solved IDA* rows of ``heuristic`` with ``prune``, their iterations recorded."""
    keep = ((rows["algorithm"] == "idastar") & (rows["heuristic"] == heuristic) & (rows["status"] == "solved")
            & rows["iterations"].notna())
    if "pruning" in rows:
        keep &= rows["pruning"].fillna("parent") == prune
    return rows[keep]


@dataclass(frozen=True)
class Agreement:
    """How one method's predictions compare with the measured counts: the ratio of the sums
    (``aggregate``) and the spread of the per-iteration and per-instance ratios."""

    method: str
    aggregate: float
    iteration_gmean: float
    iteration_median: float
    iteration_p10: float
    iteration_p90: float
    instance_gmean: float
    instance_median: float
    instance_p10: float
    instance_p90: float
    iterations: int
    instances: int


def _spread(ratios: np.ndarray) -> tuple[float, float, float, float]:
    return (float(np.exp(np.log(ratios).mean())), float(np.median(ratios)), float(np.percentile(ratios, 10)),
            float(np.percentile(ratios, 90)))


def agreement(frame: pd.DataFrame, method: str) -> Agreement:
    """:class:`Agreement` of ``method``'s column of a :func:`measured_iterations` frame."""
    per_iteration = (frame[method] / frame["measured"]).to_numpy(dtype=float)
    sums = frame.groupby("instance")[[method, "measured"]].sum()
    per_instance = (sums[method] / sums["measured"]).to_numpy(dtype=float)
    return Agreement(method, float(frame[method].sum() / frame["measured"].sum()), *_spread(per_iteration),
                     *_spread(per_instance), len(frame), len(sums))


def set_cost(model: Model, boards: np.ndarray, lengths, depth: int = 0) -> pd.DataFrame:
    """Per instance: ``h0``, ``length`` and each method's predicted nodes over the
    iterations from h0 to ``lengths[i]`` (the last in full), ``*_completed`` without it."""
    h0 = h_of(model, boards)
    rows = []
    for tiles, h, length in zip(boards.tolist(), h0.tolist(), lengths, strict=True):
        bounds = list(range(int(h), int(length) + 1, model.bound_step)) or [int(h)]
        predicted = predict_iterations(model, tiles, bounds, depth)
        rows.append({"h0": int(h), "length": int(length), "iterations": len(bounds),
                     **{m: float(v.sum()) for m, v in predicted.items()},
                     **{f"{m}_completed": float(v[:-1].sum()) for m, v in predicted.items()}})
    return pd.DataFrame(rows)


def _tables(heuristic: str, size: int, goal: tuple[int, ...], store, build: bool = True) -> tuple:
    from tilesweep.pdb_store import tables_for
    return tables_for(parse_heuristic(heuristic, size, goal), size, goal, store, build=build)


@dataclass
class SweepComparison:
    """One heuristic's predictions beside a sweep's completed iterations (of ``predicted``
    instances, a seeded sample of the ``solved`` ones with iterations when a limit is set)."""

    heuristic: str
    model: Model
    iterations: pd.DataFrame   # measured_iterations
    agreements: list[Agreement]
    solved: int = 0
    predicted: int = 0


def _limited(rows: pd.DataFrame, limit: int | None) -> pd.DataFrame:
    """At most ``limit`` of ``rows``: a uniform random sample, seed 0, in their order."""
    if limit is None or len(rows) <= limit:
        return rows
    keep = np.sort(np.random.default_rng(0).choice(len(rows), limit, replace=False))
    return rows.iloc[keep]


def compare_heuristic(spec, rows: pd.DataFrame, heuristic: str, store, sampling: Sampling = Sampling(),
                      depth: int = 0, build: bool = True, sample: bool = True,
                      limit: int | None = None, epsilon: str = "off") -> SweepComparison:
    """One IDA* heuristic of a sweep (``spec``, its ``rows``): predictions per completed
    iteration beside the measured ones, over at most ``limit`` instances. Without ``build``
    missing pattern databases, without ``sample`` missing sampled distributions, raise;
    with ``epsilon``, ``cdp-eps`` too (:func:`make_model`)."""
    goal = spec.goal_tuple
    tables = _tables(heuristic, spec.size, goal, store, build)
    model = make_model(heuristic, spec.size, goal, tables, store, spec.prune, sampling, sample, epsilon)
    solved = idastar_rows(rows, heuristic, spec.prune)
    chosen = _limited(solved, limit)
    frame = measured_iterations(chosen, model, depth)
    agreements = [agreement(frame, m) for m in METHODS if m in frame] if len(frame) else []
    return SweepComparison(heuristic, model, frame, agreements, len(solved), len(chosen))


def compare_sweep(spec, rows: pd.DataFrame, store, sampling: Sampling = Sampling(),
                  depth: int = 0, epsilon: str = "off") -> list[SweepComparison]:
    """Each IDA* heuristic of a sweep (``spec``, its ``rows``): predictions per completed
    iteration beside the measured ones. ``store``: an open pattern-database store."""
    heuristics = spec.heuristics if "idastar" in spec.algorithms else ()
    return [compare_heuristic(spec, rows, h, store, sampling, depth, epsilon=epsilon) for h in heuristics]


@dataclass
class SetForecast:
    """One heuristic's predicted cost of a set of instances (``instances``: those predicted,
    all of the set's ``of`` or a seeded sample), and this machine's speed."""

    heuristic: str
    model: Model
    instances: pd.DataFrame   # set_cost, with ``instance`` and, where published, ``published``
    rate: float               # nodes generated per CPU second, measured here
    rate_nodes: int
    rate_boards: int = 1      # the set's first boards IDA* ran to measure the rate
    of: int = 0               # instances in the set (0: those predicted)

    @property
    def scale(self) -> float:
        """The set's size over the instances predicted (1 unless a sample was predicted)."""
        return (self.of or len(self.instances)) / max(len(self.instances), 1)


def measure_rate(boards, goal, heuristic: str, tables, prune: str, nodes: int) -> tuple[float, int, int]:
    """(nodes per CPU second, nodes, boards run) of IDA* on ``boards`` in turn until ``nodes``
    nodes (the last stopped there) or the boards are done; kernels compiled before the clock."""
    from tilesweep.solver.solve import solve
    solve(boards[0], goal, "idastar", heuristic, tables, max_nodes=1000, prune=prune)  # compile
    total, seconds, runs = 0, 0.0, 0
    for board in boards:
        result = solve(board, goal, "idastar", heuristic, tables, max_nodes=nodes - total, prune=prune)
        total, seconds, runs = total + result.nodes_generated, seconds + result.cpu_seconds, runs + 1
        if total >= nodes:
            break
    return total / max(seconds, 1e-9), total, runs


def forecast_heuristic(spec, heuristic: str, boards, lengths, store, sampling: Sampling = Sampling(),
                       rate_nodes: int = 20_000_000, published: dict[int, int] | None = None, depth: int = 0,
                       indices=None, of: int = 0, build: bool = True, sample: bool = True,
                       epsilon: str = "off") -> SetForecast:
    """The predicted nodes of IDA* with ``heuristic`` on ``boards`` (:class:`~solver.Board`;
    the set's ``indices``, default 0, 1, ...) whose optimal lengths are ``lengths``, and the
    CPU time at the speed IDA* measures here on them (``rate_nodes`` nodes). Without ``build``
    missing pattern databases, without ``sample`` missing sampled distributions, raise."""
    goal = spec.goal_tuple
    tables = _tables(heuristic, spec.size, goal, store, build)
    model = make_model(heuristic, spec.size, goal, tables, store, spec.prune, sampling, sample, epsilon)
    frame = set_cost(model, np.array([b.tiles for b in boards], dtype=np.int8), lengths, depth)
    frame.insert(0, "instance", list(range(len(boards)) if indices is None else indices))
    if published:  # by the set's own ids, from 1
        frame["published"] = (frame["instance"] + 1).map(published)
    rate, nodes, runs = measure_rate(boards, goal, heuristic, tables, spec.prune, rate_nodes)
    return SetForecast(heuristic, model, frame, rate, nodes, runs, of)


def forecast_set(spec, boards, lengths, store, sampling: Sampling = Sampling(), rate_nodes: int = 20_000_000,
                 published: dict[int, int] | None = None,
                 depth: int = 0, epsilon: str = "off") -> list[SetForecast]:
    """:func:`forecast_heuristic` of each heuristic of ``spec``."""
    return [forecast_heuristic(spec, h, boards, lengths, store, sampling, rate_nodes, published, depth,
                               epsilon=epsilon) for h in spec.heuristics]


def _is_sweep(path) -> bool:
    return path is not None and (Path(path) / "sweep.json").is_file()


def predict_target(target, options: dict, store, sampling: Sampling = Sampling(), depth: int = 0,
                   rate_nodes: int = 20_000_000, epsilon: str = "off"):
    """What ``tilesweep predict`` computes: for a sweep folder ``target``, a list of
    :class:`SweepComparison`; else (a TOML spec or none, with sweep ``options``) a list of
    :class:`SetForecast` for its instances, whose optimal lengths must be known (the bundled
    sets publish them)."""
    from .instances import make_instances
    from .published import SEARCH_NODES, published_figures, published_nodes
    from .results import load_results
    from .spec import build_spec
    from .verify import read_spec

    if _is_sweep(target):
        spec = read_spec(Path(target))
        return spec, compare_sweep(spec, load_results(target), store, sampling, depth, epsilon)
    spec, _ = build_spec({**options, "algorithms": ("idastar",)}, target)
    bundled = spec.instances.bundled
    if bundled is None:
        raise InvalidOptionError(f"instances {str(spec.instances)!r}: their optimal lengths are unknown, and a set's "
                                 "cost needs them; expected a bundled set (korf100, korf50-24) or a finished sweep")
    lengths = [p.length for p in published_figures(bundled.file).values()][: spec.count]
    published = published_nodes(str(spec.instances)) if str(spec.instances) in SEARCH_NODES else None
    return spec, forecast_set(spec, make_instances(spec), lengths, store, sampling, rate_nodes, published,
                              depth, epsilon)


_AGREEMENT_KEYS = {"iterations": "iterations_compared", "instances": "instances_compared"}


def prediction_records(spec, results) -> list[dict]:
    """``tilesweep predict --format json``'s objects: per instance and set-wide (no
    ``instance``), each with ``algorithm``, ``heuristic``, ``method``, ``predicted_nodes``
    and, where measured, ``measured_nodes`` (completed iterations) or, where published,
    ``published_nodes``."""
    out = []
    for r in results:
        base = {"algorithm": "idastar", "heuristic": r.heuristic, "pruning": str(r.model.pruning),
                "distributions": r.model.describe()}
        if isinstance(r, SweepComparison):
            sums = r.iterations.groupby("instance").sum(numeric_only=True)
            for a in r.agreements:
                out += [{**base, "method": a.method, "instance": int(i), "predicted_nodes": float(row[a.method]),
                         "measured_nodes": int(row["measured"]), "iterations": "completed"}
                        for i, row in sums.iterrows()]
                out.append({**base, "method": a.method, "predicted_nodes": float(sums[a.method].sum()),
                            "measured_nodes": int(sums["measured"].sum()), "iterations": "completed",
                            **{_AGREEMENT_KEYS.get(k, k): v for k, v in a.__dict__.items() if k != "method"}})
        else:
            for method in (m for m in METHODS if m in r.instances):
                for _, row in r.instances.iterrows():
                    item = {**base, "method": method, "instance": int(row["instance"]),
                            "predicted_nodes": float(row[method]), "cpu_hours": float(row[method]) / r.rate / 3600}
                    if "published" in row and row["published"] == row["published"]:
                        item["published_nodes"] = int(row["published"])
                    out.append(item)
                total = float(r.instances[method].sum())
                out.append({**base, "method": method, "predicted_nodes": total, "cpu_hours": total / r.rate / 3600,
                            "nodes_per_second": r.rate})
    return out
