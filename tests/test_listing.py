"""Listings that one bad sweep never hides: ``status`` and the sweeps pages read every sweep
through the readers' checks (spec types, parts against the manifest), name a bad one with its
reason on its own line and list the rest; ``status`` exits 1 when one is damaged. A spec's
fields are type-checked on read, and every printed command is quoted for the shell."""

import dataclasses
import json
import shlex
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from test_integrity import PROBES, damaged_copy, sweeps  # noqa: F401 (the module's sweeps fixture)
from tilesweep.cli import app
from tilesweep.jobs.manifest import MANIFEST
from tilesweep.jobs.spec import FIELD_TYPES, SweepSpec
from tilesweep.solver.errors import InvalidOptionError, UnknownNameError

RUNNER = CliRunner()
MARKER = "marker-from-spec"


def _edit_spec(folder: Path, **fields) -> None:
    data = json.loads((folder / "sweep.json").read_text())
    (folder / "sweep.json").write_text(json.dumps({**data, **fields}))


def _truncate_spec(folder: Path) -> None:
    text = (folder / "sweep.json").read_text()
    (folder / "sweep.json").write_text(text[: len(text) // 2])


# Each damage of sweep.json and the words its reason must hold.
SPEC_DAMAGES = {
    "truncated sweep.json": (_truncate_spec, "is not a tilesweep spec"),
    "count of the wrong type": (lambda f: _edit_spec(f, count=f"2000; touch {MARKER}"),
                                f"field 'count' is '2000; touch {MARKER}'; expected a whole number"),
    "unknown algorithm": (lambda f: _edit_spec(f, algorithms=[f"idastar $(touch {MARKER})"]),
                          f"algorithm 'idastar $(touch {MARKER})' is not known"),
    "a list for an object": (lambda f: (f / "sweep.json").write_text("[1, 2]"), "expected an object"),
}


def _among_good(sweeps, tmp_path) -> Path:  # noqa: F811
    """``tmp_path/out`` holding the good sweep as ``good``; the test adds a bad ``sweep``."""
    out = tmp_path / "out"
    shutil.copytree(sweeps["sweep"], out / "good")
    return out


def _status(out: Path, monkeypatch):
    monkeypatch.chdir(out)  # a command run from the spec would leave its marker here
    return RUNNER.invoke(app, ["status", "--out", str(out)])


def _assert_listed(result, out: Path, reason: str) -> None:
    lines = result.stdout.strip().splitlines()
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    bad = [line for line in lines if line.startswith(f"{out / 'sweep'}: ")]
    assert len(bad) == 1 and bad[0].startswith(f"{out / 'sweep'}: damaged, ") and reason in bad[0], lines
    assert any(line.startswith(f"{out / 'good'}: finished, 4/4 chunks") for line in lines), lines
    assert not (out / MARKER).exists()


@pytest.mark.parametrize("damage", SPEC_DAMAGES)
def test_status_names_a_bad_sweep_json_and_lists_the_others(sweeps, tmp_path, damage, monkeypatch):  # noqa: F811
    out = _among_good(sweeps, tmp_path)
    shutil.copytree(sweeps["sweep"], out / "sweep")
    SPEC_DAMAGES[damage][0](out / "sweep")
    _assert_listed(_status(out, monkeypatch), out, SPEC_DAMAGES[damage][1])


def _bad_manifest_line(folder: Path) -> None:
    lines = (folder / MANIFEST).read_text().splitlines()
    (folder / MANIFEST).write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")


# Damages of the manifest, which the readers refuse too.
MANIFEST_DAMAGES = {"a manifest line that is not JSON": (_bad_manifest_line, "line 2 is not JSON"),
                    "no manifest": (lambda f: (f / MANIFEST).unlink(), f"has no {MANIFEST}")}


@pytest.mark.parametrize("damage", MANIFEST_DAMAGES)
def test_status_says_damaged_for_a_damaged_manifest(sweeps, tmp_path, damage, monkeypatch):  # noqa: F811
    out = _among_good(sweeps, tmp_path)
    shutil.copytree(sweeps["sweep"], out / "sweep")
    MANIFEST_DAMAGES[damage][0](out / "sweep")
    _assert_listed(_status(out, monkeypatch), out, MANIFEST_DAMAGES[damage][1])


@pytest.mark.parametrize("probe", [p for p in PROBES if p != "deleted part"])
def test_status_says_damaged_for_each_damage_the_readers_refuse(sweeps, tmp_path, probe, monkeypatch):  # noqa: F811
    out = _among_good(sweeps, tmp_path)
    folder, bad = damaged_copy(sweeps, out, probe)
    result = _status(out, monkeypatch)
    _assert_listed(result, out, PROBES[probe][1])
    assert repr(str(bad)) in result.stdout


@pytest.mark.parametrize("damage", SPEC_DAMAGES)
def test_the_sweeps_listing_names_a_bad_sweep_json_and_lists_the_others(sweeps, tmp_path, damage):  # noqa: F811
    from tilesweep.webui.sweeps import listing
    out = _among_good(sweeps, tmp_path)
    shutil.copytree(sweeps["sweep"], out / "sweep")
    SPEC_DAMAGES[damage][0](out / "sweep")
    by_name = {s["name"]: s for s in listing(out)}
    assert by_name["good"]["run"] == "finished" and by_name["good"]["problem"] is None
    assert by_name["sweep"]["run"] == "damaged" and SPEC_DAMAGES[damage][1] in by_name["sweep"]["problem"]
    json.dumps(list(by_name.values()))  # what /api/sweeps sends


@pytest.mark.parametrize("field, value, says", [
    ("count", "2000; touch X", "field 'count' is '2000; touch X'; expected a whole number"),
    ("count", True, "field 'count' is True; expected a whole number"),
    ("size", 3.0, "field 'size' is 3.0; expected a whole number"),
    ("goal", 1, "field 'goal' is 1; expected str"),
    ("heuristics", "manhattan", "field 'heuristics' is 'manhattan'; expected a list of names"),
    ("time_limit", "1; touch X", "field 'time_limit' is '1; touch X'; expected int or float or null"),
    ("plugins", [["p", "sha"]], "field 'plugins' is [['p', 'sha']]; expected a list of [name, sha256, source, file]"),
    ("extra", 1, "field 'extra' is not known"),
])
def test_a_spec_field_of_the_wrong_type_is_refused_naming_it(sweeps, field, value, says):  # noqa: F811
    data = json.loads((sweeps["sweep"] / "sweep.json").read_text())
    with pytest.raises(InvalidOptionError) as err:
        SweepSpec.from_json(json.dumps({**data, field: value}))
    assert says in str(err.value) and "\n" not in str(err.value)


def test_every_spec_field_has_a_json_type():
    """A field added to SweepSpec without a type here would make every sweep of it unreadable."""
    assert {f.name for f in dataclasses.fields(SweepSpec)} == set(FIELD_TYPES)


def test_a_spec_with_conventions_reads_back(sweeps):  # noqa: F811
    data = json.loads((sweeps["sweep"] / "sweep.json").read_text())
    spec = SweepSpec.from_json(json.dumps({**data, "algorithms": ["astar"], "conventions": "heap-best-g"}))
    assert spec.conventions == "heap-best-g"


def test_an_unknown_algorithm_in_a_spec_is_refused(sweeps):  # noqa: F811
    data = json.loads((sweeps["sweep"] / "sweep.json").read_text())
    with pytest.raises(UnknownNameError, match=r"algorithm 'idastar \$\(touch X\)' is not known"):
        SweepSpec.from_json(json.dumps({**data, "algorithms": ["idastar $(touch X)"]}))


def test_the_rerun_command_is_quoted_for_the_shell(sweeps):  # noqa: F811
    """Every word, whatever its field holds (``replace`` skips the checks of a read spec)."""
    spec = SweepSpec.from_json((sweeps["sweep"] / "sweep.json").read_text())
    odd = dict(out="/tmp/two words; $(touch X) 'q'", count="2000; touch X", algorithms=("idastar $(touch X)",),
               prune="fsm; touch X")
    words = shlex.split(replace(spec, **odd).command(prog="tilesweep"))
    assert words[:2] == ["tilesweep", "sweep"] and words.count("--heuristic") == len(spec.heuristics)
    for option, value in [("--out", odd["out"]), ("--count", odd["count"]),
                          ("--algorithm", odd["algorithms"][0]), ("--prune", odd["prune"])]:
        assert words[words.index(option) + 1] == value


# --- a resume rebuilds an unreadable sweep.json from its parts ----------------------------

def _resumable(sweeps, tmp_path) -> tuple[Path, SweepSpec]:  # noqa: F811
    folder = tmp_path / "sweep"
    shutil.copytree(sweeps["sweep"], folder)
    spec = replace(SweepSpec.from_json((folder / "sweep.json").read_text()), out=str(tmp_path))
    _truncate_spec(folder)
    return folder, spec


def test_a_resume_rebuilds_a_truncated_sweep_json_from_its_parts(sweeps, tmp_path):  # noqa: F811
    from tilesweep.jobs.sweep import prepare
    folder, spec = _resumable(sweeps, tmp_path)
    with prepare(spec) as plan:
        assert plan.done == set(range(spec.n_chunks)) and not plan.moved
        assert plan.rebuilt.startswith(f"rebuilt {str(folder / 'sweep.json')!r} from the spec its parts record")
        assert "\n" not in plan.rebuilt
    assert SweepSpec.from_json((folder / "sweep.json").read_text()) == spec


@pytest.mark.parametrize("damage, says", [
    (lambda folder, other: [p.unlink() for p in (folder / "results").glob("part-*.parquet")],
     "no part records a spec"),
    (lambda folder, other: shutil.copy(other / "results" / "part-00003.parquet", folder / "results"),
     "its parts record 2 different specs"),
], ids=["no parts", "parts that disagree"])
def test_a_resume_refuses_to_rebuild_without_one_agreed_spec(sweeps, tmp_path, damage, says):  # noqa: F811
    from tilesweep.jobs.manifest import CorruptPartError
    from tilesweep.jobs.sweep import prepare
    folder, spec = _resumable(sweeps, tmp_path)
    damage(folder, sweeps["other"])
    with pytest.raises(CorruptPartError) as err:
        prepare(spec)
    assert says in str(err.value) and "is not a tilesweep spec" in str(err.value) and "\n" not in str(err.value)
    left = (folder / "sweep.json").read_text()  # as it was: truncated
    assert len(left) < len((sweeps["sweep"] / "sweep.json").read_text())


def test_status_names_a_recorded_part_missing_without_calling_the_sweep_damaged(sweeps, tmp_path,  # noqa: F811
                                                                                 monkeypatch):
    """A writer killed between recording a part and renaming it into place leaves a recorded
    part missing, which a resume writes again: the sweep shows in its state with the part named
    (exit 0), and any other damage beside it still makes it damaged."""
    out = _among_good(sweeps, tmp_path)
    folder, bad = damaged_copy(sweeps, out, "deleted part")
    result = _status(out, monkeypatch)
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{folder}: "))
    assert lines[at].startswith(f"{folder}: interrupted, ") and bad.name in lines[at + 1], lines
    (folder / "results" / "stray.parquet").write_bytes(b"not a part")
    assert _status(out, monkeypatch).exit_code == 1
