"""Sweeps that cannot start say why in one line: scheduler addresses, folders; error rows
are kept on a rerun unless --retry-errors."""

import http.server
import threading
from pathlib import Path

import dask
import pytest
from typer.testing import CliRunner

import faults
from tilesweep.cli import app
from tilesweep.jobs.spec import build_spec
from tilesweep.jobs.sweep import prepare, run_local

RUNNER = CliRunner()


def cli(*args):
    """``tilesweep ARGS`` in this process, with no $DASK_SCHEDULER_ADDRESS: (exit code, stderr).
    An exception the command line let through (a traceback in a terminal) fails the test."""
    result = RUNNER.invoke(app, list(map(str, args)), env={"DASK_SCHEDULER_ADDRESS": ""})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stderr


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert "Traceback" not in stderr and lines[-1].startswith("error: "), stderr
    return lines[-1]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass  # the server thread shares the CLI's captured stderr


class QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # the client hangs up when no handshake comes: not the test's subject


@pytest.fixture
def http_port():
    server = QuietServer(("127.0.0.1", 0), QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()


@pytest.mark.slow  # waits out a refused and a wrong-protocol connection
def test_scheduler_addresses(tmp_path, http_port):
    sweep = ["sweep", "--size", 3, "--count", 2, "--out", tmp_path]
    code, err = cli(*sweep, "--scheduler", "nonsense")
    assert code == 2 and "scheduler 'nonsense' is not a Dask scheduler address" in one_line(err)
    code, err = cli(*sweep, "--scheduler", "tcp://127.0.0.1:1")
    assert code == 1 and "cannot reach the Dask scheduler 'tcp://127.0.0.1:1' (Connection refused)" in one_line(err)
    code, err = cli(*sweep, "--scheduler", f"tcp://127.0.0.1:{http_port}")
    line = one_line(err)
    assert code == 1 and f"no Dask scheduler answers at 'tcp://127.0.0.1:{http_port}': an HTTP server" in line


def test_tls_address_without_usable_tls_settings(tmp_path):
    """Dask's own failure here is a traceback (TypeError: TLS expects a ssl_context argument)."""
    sweep = ["sweep", "--size", 3, "--count", 2, "--out", tmp_path, "--scheduler", "tls://127.0.0.1:8786"]
    with dask.config.set({"distributed.comm.tls.ca-file": None, "distributed.comm.tls.client.cert": None}):
        code, err = cli(*sweep)
    assert code == 2 and ("scheduler 'tls://127.0.0.1:8786' is a TLS address, but Dask's configuration has no "
                          "distributed.comm.tls.ca-file and no distributed.comm.tls.client.cert") in one_line(err)
    missing = tmp_path / "no-such-ca.pem"
    with dask.config.set({"distributed.comm.tls.ca-file": str(missing),
                          "distributed.comm.tls.client.cert": str(missing)}):
        code, err = cli(*sweep)
    assert code == 2 and "Dask's TLS settings cannot be used" in one_line(err)
    assert not (tmp_path / "sweeps").exists() and not list(tmp_path.iterdir())  # refused before any work


@pytest.fixture
def read_only(tmpfs):
    """A read-only tmpfs (as root, permission bits would not stop a write)."""
    return tmpfs("ro,size=1m")


@pytest.mark.parametrize("where", ["proc", "read-only"])
def test_unwritable_folders_are_bad_input(where, read_only):
    folder = Path("/proc/tilesweep") if where == "proc" else read_only / "sweeps"
    code, err = cli("sweep", "--size", 3, "--count", 2, "--workers", 1, "--out", folder)
    line = one_line(err)
    assert code == 2 and f"--out '{folder}" in line and "cannot be written" in line
    code, err = cli("pdb", "build", "--size", 3, "--partition", "4-4", "--store", folder)
    line = one_line(err)
    assert code == 2 and f"--store '{folder}'" in line and "cannot be written" in line


def test_error_rows_are_kept_unless_retry_errors(tmp_path, monkeypatch):
    spec, _ = build_spec(dict(size=3, count=6, seed=1, out=str(tmp_path), name="faulty", chunk_size=2))
    with monkeypatch.context() as patch:
        faults.install(faults.listed("faulty:3"), patch.setattr)
        run_local(prepare(spec))
    assert prepare(spec).pending == []
    retry = prepare(spec, retry_errors=True)
    assert [job.chunk for job in retry.pending] == [1]
    run_local(retry)
    from tilesweep.jobs.results import load_results
    df = load_results(spec.folder)
    assert (df["status"] == "solved").all() and sorted(df["instance"]) == list(range(6))
