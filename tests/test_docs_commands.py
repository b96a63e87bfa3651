"""Every short command of README.md and docs/**/*.md runs as written.

Commands are the lines of the docs' fenced shell blocks that start with ``tilesweep`` or
``python cli.py`` (also after ``&&``); the imported ``tilesweep.cli`` stands for the program
(``python -m tilesweep.cli`` for a sweep), so this checks a checkout and an installed wheel alike.
They run in a scratch folder with a
pattern-database store of their own (``$TILESWEEP_STORE``), where:

- the sweeps the docs name (``sweeps/NAME``, ``sweeps/before``, ..., docker.md's
  ``results/sweeps/demo``) are small sweeps of one spec run in this process first;
- a ``toml`` block whose first line is ``# FILE.toml: ...`` is written to ``FILE.toml``, a
  ``text`` block whose first line is ``# FILE.txt: ...`` (an instances file) to ``FILE.txt``;
- a ``sweep`` starts a local Dask cluster (tier ``cluster``) and runs on a tiny count:
  ``--count 3 --workers 1`` is appended, and the last value of an option wins (a sweep of
  an instances file written here keeps its count: the file is as small as the docs show it); a
  ``solve --parallel`` starts one too (tier ``cluster``).

What cannot run here is skipped with its reason (:data:`SKIPS`); a command that takes seconds
runs in the slow tier (:data:`SLOW`).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sweeps_local import local_sweep

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PROGRAMS = ("tilesweep ", "python cli.py ")
SHELL_BLOCKS = ("", "sh", "bash", "shell", "console")
TINY = ["--count", "3", "--workers", "1"]
SKIPS = [  # (pattern in the command, why it cannot run here)
    (r"--scheduler \S+://", "needs a Dask scheduler running at that address (the cluster tests start their own)"),
    (r"^tilesweep ui\b", "starts a server that runs until stopped (tests/test_webui_http.py drives it)"),
    (r"7-8", "builds or reads the 7-8 pattern database: about 6 CPU minutes and 1.8 GB"),
    (r"6-6-6-6|korf50-24", "builds or reads the 24-puzzle's 6-6-6-6 pattern databases (minutes, 1.7 GB), "
     "or solves Korf & Felner's 24-puzzles (hours each)"),
    (r"Korf #88", "solves Korf #88: 6.3 billion nodes, about a minute on an idle core"),
    (r"\.\.\.|…", "elided, not a whole command"),
    (r"--table published", "needs a sweep of Korf's boards to the end (tests/test_tables.py runs one under a budget)"),
    (r"--detach\b", "leaves a client running in the background (tests/test_detach.py follows one)"),
    (r"--cluster (slurm|pbs|sge)\b", "submits batch jobs to a Slurm cluster (tier slurm: tests/test_slurm.py)"),
    (r"\bsbatch-script >", "writes the one-allocation script for sbatch (tier slurm: tests/test_slurm.py submits it)"),
    (r"\[--|\bSWEEP\b|\bOLD NEW\b", "a synopsis of the options, not a command"),
]
SLOW = [  # (pattern in the command, why it runs in the slow tier only)
    (r"^tilesweep report \S+ \S+ --compare", "draws a before/after report: seconds of plotting"),
    (r"^tilesweep report \S+\s*(#.*)?$", "writes a whole report, as tests/test_report.py does in the fast tier"),
    (r"--figures\b|^tilesweep figures\b", "draws every figure as a file: seconds of plotting"),
    (r"^tilesweep predict\b", "samples a heuristic's distributions: every 8-puzzle state or a million 15-puzzles"),
]
SWEEP_NAMES = ("NAME", "main", "before", "after", "demo", "korf100")  # as the docs name them
PLACEHOLDERS = {"results/sweeps/demo": "sweeps/demo"}


def fenced_blocks(path: Path):
    """(language, first line number, lines) of every fenced block of ``path``."""
    block, language, start = None, "", 0
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("```"):
            if block is None:
                block, language, start = [], line[3:].strip(), number + 1
            else:
                yield language, start, block
                block = None
        elif block is not None:
            block.append(line)


def doc_commands():
    """(where, command) of every command in the docs, continuation lines joined."""
    for path in DOCS:
        for language, start, lines in fenced_blocks(path):
            if language not in SHELL_BLOCKS:
                continue
            lines = "\n".join(lines).replace("\\\n", " ").splitlines()
            offset = 0
            while offset < len(lines):
                first, line = offset, lines[offset]
                offset += 1
                while not quotes_closed(line) and offset < len(lines):  # a quoted argument goes on
                    line, offset = line + "\n" + lines[offset], offset + 1
                for part in line.split("&&"):
                    part = part.strip()
                    if part.startswith(PROGRAMS):
                        yield f"{path.relative_to(ROOT)}:{start + first}", part


def quotes_closed(text: str) -> bool:
    try:
        shlex.split(text, comments=True)
    except ValueError:
        return False
    return True


def spec_files() -> dict[str, str]:
    """{file name: text} of the docs' ``toml`` and ``text`` blocks that name their file."""
    out = {}
    for path in DOCS:
        for language, _, lines in fenced_blocks(path):
            kind = {"toml": r"\.toml", "text": r"\.txt"}.get(language)
            match = re.match(rf"# (\S+{kind}):", lines[0]) if kind and lines else None
            if match:
                out[match.group(1)] = "\n".join(lines) + "\n"
    return out


def cases():
    for where, command in doc_commands():
        skip = next((why for pattern, why in SKIPS if re.search(pattern, command)), None)
        marks = [pytest.mark.skip(reason=skip)] if skip else []
        if any(re.search(pattern, command) for pattern, _ in SLOW):
            marks.append(pytest.mark.slow)
        if re.match(r"(tilesweep|python cli\.py) sweep\b", command) or "--parallel" in command:
            marks.append(pytest.mark.cluster)
        yield pytest.param(command, id=where, marks=marks)


def test_the_docs_have_commands():
    found = [command for _, command in doc_commands()]
    assert any(c.startswith("tilesweep solve") for c in found) and any(" summary " in c for c in found)
    assert any(c.startswith("tilesweep sweep") and ".toml" in c for c in found), "sweep-spec.md's example"
    assert "walk30.toml" in spec_files()


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A folder with the docs' spec files, a sweep for ``sweeps/NAME`` and its own store."""
    folder = tmp_path_factory.mktemp("docs")
    for name, text in spec_files().items():
        (folder / name).write_text(text)
    shutil.copytree(ROOT / "examples", folder / "examples")  # the example plugins the docs name
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    env["TILESWEEP_STORE"] = str(folder / "pdb")
    for name in SWEEP_NAMES:  # one spec: compare finds no cost difference
        local_sweep(folder / "sweeps", name, store=env["TILESWEEP_STORE"], size=3, count=10, seed=1,
                    algorithms=("astar", "idastar"), heuristics=("manhattan", "linear-conflict", "pdb:5-3"))
    return folder, env


def args_of(command: str) -> list[str]:
    """The command's arguments after the program's name."""
    for placeholder, path in PLACEHOLDERS.items():
        command = command.replace(placeholder, path)
    words = shlex.split(command, comments=True)
    words = words[2:] if words[:2] == ["python", "cli.py"] else words[1:]
    if words[0] != "sweep":
        return words
    written = any(a.endswith(".txt") and b == "--instances" for b, a in zip(words, words[1:]))
    return [*words, *(TINY[2:] if written else TINY)]


def run(args: list[str], folder: Path, env: dict) -> tuple[int, str]:
    """(exit code, stderr) of the program with ``args`` in ``folder``: a sweep or a
    ``--parallel`` solve (a real Dask cluster) in a process of its own, anything else in this
    one, which saves an interpreter start per command; a traceback either way fails the test."""
    if args[0] == "sweep" or "--parallel" in args:
        proc = subprocess.run([sys.executable, "-m", "tilesweep.cli", *args], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=600)
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc.returncode, proc.stderr
    from typer.testing import CliRunner

    from tilesweep.cli import app
    here = os.getcwd()
    os.chdir(folder)
    try:
        result = CliRunner().invoke(app, args, env={"TILESWEEP_STORE": env["TILESWEEP_STORE"],
                                                    "DASK_SCHEDULER_ADDRESS": None})
    finally:
        os.chdir(here)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.stderr


@pytest.mark.parametrize("command", list(cases()))
def test_the_command_runs_as_written(command, scratch):
    folder, env = scratch
    code, stderr = run(args_of(command), folder, env)
    assert code == 0, f"{command}\n{stderr[-2000:]}"


PLUGIN_DOCS = ROOT / "docs" / "plugins.md"


def plugin_examples():
    """Every ``python`` block of docs/plugins.md: each is a whole plugin file."""
    for language, start, lines in fenced_blocks(PLUGIN_DOCS):
        if language == "python":
            yield pytest.param("\n".join(lines) + "\n", id=f"{PLUGIN_DOCS.relative_to(ROOT)}:{start}")


def test_the_plugin_docs_have_examples():
    assert len(list(plugin_examples())) >= 2


@pytest.mark.parametrize("source", list(plugin_examples()))
def test_the_plugin_examples_serve_as_written(source, tmp_path):
    """Each example file loads, passes the checks every search makes first (an integer h, 0 at
    the goal, an incremental form equal to the full-board one along a walk) and solves a
    board to the optimal cost with IDA*."""
    from tilesweep.jobs.plugins import load_files
    from tilesweep.solver import Board, solve
    from tilesweep.solver.board import goal_tiles
    from tilesweep.solver.plugins import checked

    (tmp_path / "example.py").write_text(source)
    names = load_files([tmp_path / "example.py"])
    assert names
    board = Board.parse("1 2 3 4 5 6 0 7 8")  # two moves from the goal
    for name in names:
        checked(name, goal_tiles("blank-last", 3))
        found = solve(board, "blank-last", "idastar", f"plugin:{name}")
        assert (found.status, found.cost) == ("solved", 2), name


def test_the_readme_lists_every_document():
    listed = set(re.findall(r"^- \[docs/([\w-]+\.md)\]", (ROOT / "README.md").read_text(), re.M))
    assert listed == {path.name for path in (ROOT / "docs").glob("*.md")}


def test_the_history_index_lists_every_page():
    listed = set(re.findall(r"^- \[[^\]]+\]\(history/([\w-]+\.md)\)", (ROOT / "docs" / "history.md").read_text(), re.M))
    assert listed == {path.name for path in (ROOT / "docs" / "history").glob("*.md")}
