"""The kernels read :class:`~tilesweep.solver.heuristics.KernelHeuristic` by field name.

Taken apart by position (``a, b, ... = H`` or ``H[5]``), a field added or moved would shift
every later read onto the wrong array, and numba would often compile it anyway (most fields
are arrays). Read by name, such a change is an error at compile time or none at all.
"""

import ast
from pathlib import Path

import tilesweep.solver as solver_package
from tilesweep.solver.heuristics import KernelHeuristic, PluginHeuristic

SOLVER = Path(solver_package.__file__).resolve().parent


def positional_reads(source: str, name: str = "H") -> list[int]:
    """Lines of ``source`` that unpack ``name`` into a tuple or index it with a constant."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == name \
                and any(isinstance(t, ast.Tuple | ast.List) for t in node.targets):
            lines.append(node.lineno)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                and isinstance(node.slice, ast.Constant | ast.Slice):
            lines.append(node.lineno)
    return lines


def test_the_check_finds_a_positional_read():
    source = "def k(H):\n    tile_cost, scale, _ = H\n    x = H[3]\n    y = H.n_groups\n    return H[1:]\n"
    assert positional_reads(source) == [2, 3, 5]


def test_no_solver_module_reads_the_heuristic_by_position():
    found = {path.name: positional_reads(path.read_text()) for path in sorted(SOLVER.glob("*.py"))}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_kernels_read_fields_that_exist():
    """Every ``H.<field>`` a solver module reads names a field (or ``base``, ``plug``, ...
    of a plugin heuristic); the kernels that take ``H`` read it this way."""
    plugin_fields = set(PluginHeuristic._fields)
    readers = set()
    for path in SOLVER.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "H":
                assert node.attr in KernelHeuristic._fields or node.attr in plugin_fields, \
                    f"{path.name}:{node.lineno} reads H.{node.attr}"
                readers.add(path.name)
    assert {"astar.py", "graphsearch.py", "hstate.py", "idastar.py", "idastar_pdb.py",
            "idastar_pdb_walk.py"} <= readers
