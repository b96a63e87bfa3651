"""The kernels read :class:`~tilesweep.solver.heuristics.KernelHeuristic` and the contexts
of the IDA* contours (``ctx``, and the general contour's ``node``) by field name.

Taken apart by position (``a, b, ... = H`` or ``H[5]``), a field added or moved would shift
every later read onto the wrong array, and numba would often compile it anyway (most fields
are arrays). Read by name, such a change is an error at compile time or none at all. For
the same reason these named tuples are built by keyword, and no context is a plain tuple.
"""

import ast
from pathlib import Path

import tilesweep.solver as solver_package
from tilesweep.solver.heuristics import KernelHeuristic, PluginHeuristic

SOLVER = Path(solver_package.__file__).resolve().parent
READ_BY_NAME = ("H", "ctx", "node")  # the heuristic, a contour's context, the general contour's node
BUILT_BY_KEYWORD = {"KernelHeuristic", "Node", "Search", "PdbSearch", "PdbWalkSearch", "LinesSearch", "WalkSearch"}


def positional_reads(source: str, name: str = "H") -> list[int]:
    """Lines of ``source`` that unpack ``name`` into a tuple, index it with a constant or
    make it a plain tuple."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == name \
                and any(isinstance(t, ast.Tuple | ast.List) for t in node.targets):
            lines.append(node.lineno)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                and isinstance(node.slice, ast.Constant | ast.Slice):
            lines.append(node.lineno)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple) \
                and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            lines.append(node.lineno)
    return lines


def positional_builds(source: str) -> list[int]:
    """Lines of ``source`` that call one of :data:`BUILT_BY_KEYWORD` with a positional argument."""
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in BUILT_BY_KEYWORD
            and node.args]


def test_the_check_finds_a_positional_read():
    source = "def k(H):\n    tile_cost, scale, _ = H\n    x = H[3]\n    y = H.n_groups\n    return H[1:]\n"
    assert positional_reads(source) == [2, 3, 5]


def test_the_check_finds_a_plain_context_and_a_positional_build():
    source = ("def k(ctx):\n    a, b = ctx\n    ctx = (a, b)\n    node = ctx.node\n"
              "    return Node(a, b=b), Search(node=node), KernelHeuristic(*a)\n")
    assert positional_reads(source, "ctx") == [2, 3]
    assert positional_reads(source, "node") == []
    assert positional_builds(source) == [5, 5]


def test_no_solver_module_reads_the_heuristic_or_a_context_by_position():
    found = {(path.name, name): positional_reads(path.read_text(), name) for path in sorted(SOLVER.glob("*.py"))
             for name in READ_BY_NAME}
    assert {key: lines for key, lines in found.items() if lines} == {}


def test_the_named_tuples_the_kernels_take_are_built_by_keyword():
    found = {path.name: positional_builds(path.read_text()) for path in sorted(SOLVER.glob("*.py"))}
    assert {name: lines for name, lines in found.items() if lines} == {}
    defined = {node.name for path in SOLVER.glob("*.py") for node in ast.walk(ast.parse(path.read_text()))
               if isinstance(node, ast.ClassDef)}
    assert BUILT_BY_KEYWORD <= defined, "a class the check looks for was renamed"


def test_every_contour_takes_a_named_context():
    """Every function handed to ``deepening`` (the contours the IDA* loop runs) reads ``ctx``
    by attribute only."""
    for path in SOLVER.glob("*.py"):
        tree = ast.parse(path.read_text())
        for func in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.args.args
                     and n.args.args[0].arg == "ctx"):
            uses = [n for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == "ctx"
                    and isinstance(n.ctx, ast.Load)]
            attributes = {id(n.value) for n in ast.walk(func) if isinstance(n, ast.Attribute)}
            calls = {id(a) for n in ast.walk(func) if isinstance(n, ast.Call) for a in n.args}
            assert all(id(n) in attributes | calls for n in uses), f"{path.name}:{func.name} reads ctx as a tuple"


def test_the_kernels_read_fields_that_exist():
    """Every ``H.<field>`` (or ``ctx.H.<field>``) a solver module reads names a field (or
    ``base``, ``plug``, ... of a plugin heuristic); the kernels that take ``H`` read it this way."""
    plugin_fields = set(PluginHeuristic._fields)
    readers = set()
    for path in SOLVER.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Attribute):
                continue
            if isinstance(node.value, ast.Name) and node.value.id == "H" \
                    or isinstance(node.value, ast.Attribute) and node.value.attr == "H":
                assert node.attr in KernelHeuristic._fields or node.attr in plugin_fields, \
                    f"{path.name}:{node.lineno} reads H.{node.attr}"
                readers.add(path.name)
    assert {"astar.py", "graphsearch.py", "hstate.py", "idastar.py",
            "idastar_pdb.py"} <= readers
