"""The command line behaves like its neighbours: ``-h`` and ``--help`` on every command,
``--version``, boolean options shown and parsed as flags, every heuristic name in the help
of each command that takes one."""

import json
import subprocess

import pytest
import typer
from typer.testing import CliRunner

from program import CLI
from tilesweep import __version__
from tilesweep.cli import app
from tilesweep.solver.heuristics import PARTITIONS, heuristic_names

runner = CliRunner()
WIDE = {"COLUMNS": "400"}  # a help line per option, so names are not wrapped


def command_paths(command=None, path=()):
    """The word path of every command and group, the program itself first (``()``)."""
    command = command or typer.main.get_command(app)
    yield path
    for name, sub in getattr(command, "commands", {}).items():
        yield from command_paths(sub, (*path, name))


def commands():
    """Every command and group as (path, click command)."""
    root = typer.main.get_command(app)
    for path in command_paths():
        command = root
        for word in path:
            command = command.commands[word]
        yield path, command


PATHS = list(command_paths())


def invoke(*args):
    result = runner.invoke(app, list(args), env=WIDE, prog_name="tilesweep")
    assert "Traceback" not in result.output
    return result


def test_every_command_is_walked():
    assert {("solve",), ("sweep",), ("summary",), ("query",), ("pdb",), ("pdb", "build")} <= set(PATHS)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "tilesweep")
def test_dash_h_is_help_on_every_command(path):
    short, long = invoke(*path, "-h"), invoke(*path, "--help")
    assert short.exit_code == 0, short.output
    assert f"Usage: tilesweep {' '.join(path)}".rstrip() in short.output
    assert short.output == long.output


def test_no_option_but_help_is_dash_h():
    for path, command in commands():
        for param in command.params:
            assert "-h" not in getattr(param, "opts", ()), (path, param.name)


def test_heuristic_short_option_is_capital_h():
    result = invoke("solve", "8 6 7 2 5 4 3 0 1", "-H", "linear-conflict", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["heuristic"] == "linear-conflict"


def test_version():
    result = invoke("--version")
    assert result.exit_code == 0 and result.stdout == f"tilesweep {__version__}\n"


def test_version_of_the_installed_program():
    done = subprocess.run([*CLI, "--version"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == f"tilesweep {__version__}\n", done.stderr


def test_flags_are_shown_without_a_value():
    flags = 0
    for path, command in commands():
        help_text = invoke(*path, "--help").output
        assert "<bool>" not in help_text, path
        for param in command.params:
            if isinstance(param, typer.core.TyperOption) and param.is_flag:
                flags += 1
                row = next(line for line in help_text.splitlines() if line.lstrip("│ ").startswith(param.opts[0]))
                after_names = [w for w in row.split() if w not in (*param.opts, *param.secondary_opts, "│")]
                assert after_names[0] == param.help.split()[0], row  # no value between names and help
    assert flags >= 10  # --json, --trace, --wide, --deep, --version, ...


def test_flags_are_parsed_as_flags():
    result = invoke("solve", "8 6 7 2 5 4 3 0 1", "--json", "--trace")
    assert result.exit_code == 0 and json.loads(result.stdout)["cost"] == 31


@pytest.mark.parametrize("word", ["true", "False", "1"])
def test_a_value_after_a_flag_says_flags_take_none(word):
    result = invoke("solve", "8 6 7 2 5 4 3 0 1", "--json", word)
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1
    assert f"'{word}'" in lines[0] and "a flag takes no value" in lines[0]


def test_other_extra_arguments_get_no_flag_hint():
    result = invoke("summary", "a", "b")
    assert result.exit_code == 2 and "(b)" in result.stderr and "flag" not in result.stderr


TAKE_A_HEURISTIC = [path for path, command in commands()
                    if any("--heuristic" in getattr(p, "opts", ()) for p in command.params)]


def test_the_commands_that_take_a_heuristic_are_found():
    assert {("solve",), ("sweep",), ("warm",)} <= set(TAKE_A_HEURISTIC)


@pytest.mark.parametrize("path", TAKE_A_HEURISTIC, ids=" ".join)
def test_heuristic_names_in_the_help(path):
    text = invoke(*path, "--help").output
    row = next(line for line in text.splitlines() if line.lstrip("│ ").startswith("--heuristic"))
    words = set(row.replace(",", " ").replace(";", " ").split())
    for size in PARTITIONS:
        assert set(heuristic_names(size)) - {n for n in heuristic_names(size) if n.endswith("+reflect")} <= words
    assert "+reflect" in row and "max(A,B,...)" in row


def flat_help(*path) -> str:
    """A command's help as one line of words (the table's borders and wrapping taken out)."""
    return " ".join(invoke(*path, "--help").output.replace("│", " ").split())


TAKE_A_PLUGIN = [path for path, command in commands()
                 if any("--plugin" in getattr(p, "opts", ()) for p in command.params)
                 and any(p.name == "heuristic" for p in command.params)]


def test_the_commands_that_take_a_plugin_and_a_heuristic_are_found():
    assert {("solve",), ("sweep",), ("check-heuristic",)} <= set(TAKE_A_PLUGIN)


@pytest.mark.parametrize("path", TAKE_A_PLUGIN, ids=" ".join)
def test_plugin_heuristics_are_in_the_heuristic_list(path):
    assert "max(A,B,...) of any of them; plugin:NAME, a heuristic of a --plugin file" in flat_help(*path)


def test_square_brackets_in_help_are_printed():
    assert "(pip install 'tilesweep[hpc]')" in flat_help("sweep")
