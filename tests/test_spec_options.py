"""The typed path into a spec: :class:`SweepOptions` as the command line builds it, laid over a
TOML spec's options over the defaults, gives the spec a dict of text values gives."""

from tilesweep.jobs.options import DEFAULTS, SweepOptions, read_toml
from tilesweep.jobs.sources import InstanceSource
from tilesweep.jobs.spec import build_spec


def test_typed_options_give_the_spec_of_text_options(tmp_path):
    typed = SweepOptions(size=4, count=6, seed=3, instances=InstanceSource.parse("walk:12"), algorithms=("astar",),
                         heuristics=("linear-conflict",), time_limit=2.5, max_memory=1 << 26, out=str(tmp_path),
                         workers=1, cluster_options=())
    text = dict(size="4", count="6", seed="3", instances="walk:12", algorithms=("astar",),
                heuristics=("linear-conflict",), time_limit="2.5", max_memory="67108864", out=str(tmp_path),
                workers="1")
    spec, run = build_spec(typed, workers=2)
    assert (spec, run) == build_spec(text, workers=2)
    assert (spec.size, spec.count, spec.time_limit, spec.max_memory, run.workers) == (4, 6, 2.5, 1 << 26, 1)


def test_command_line_over_toml_over_defaults(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text('[sweep]\ncount = 9\nseed = 4\nalgorithms = ["astar", "bfs"]\nworkers = 3\n')
    from_file = read_toml(path)
    assert (from_file.count, from_file.seed, from_file.workers, from_file.heuristics) == (9, 4, 3, None)
    given = SweepOptions.parse(dict(seed="11", algorithms=(), out=str(tmp_path)))  # () : a left-out --algorithm
    merged = given.over(from_file.over(DEFAULTS))
    assert (merged.count, merged.seed, merged.algorithms, merged.heuristics) == (9, 11, ["astar", "bfs"],
                                                                                 DEFAULTS.heuristics)
    spec, run = build_spec(given, str(path), workers=2)
    assert (spec.count, spec.seed, spec.algorithms, spec.heuristics, run.workers) == (9, 11, ("astar", "bfs"),
                                                                                      ("manhattan",), 3)
