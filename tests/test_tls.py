"""A sweep against a TLS scheduler completes with Dask's TLS settings (a CA and a certificate
made here with openssl); without them the address is one line, exit 2 (tests/test_sweep_errors.py)."""

import json
import shutil
import subprocess

import pytest

from polling import wait_for
from test_cluster_finish import DASK, rows, sweep

pytestmark = [pytest.mark.cluster, pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")]


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def certificates(tmp_path):
    """A CA and one key and certificate it signed, for the scheduler, the worker and the client."""
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "1",
            "-subj", "/CN=tilesweep-test-ca", cwd=tmp_path)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "node.key", "-out", "node.csr", "-subj",
            "/CN=127.0.0.1", cwd=tmp_path)
    openssl("x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "node.pem", "-days", "1", cwd=tmp_path)
    return [str(tmp_path / name) for name in ("ca.pem", "node.pem", "node.key")]


def test_sweep_on_a_tls_scheduler(certificates, tmp_path):
    ca, cert, key = certificates
    tls = ["--tls-ca-file", ca, "--tls-cert", cert, "--tls-key", key, "--no-dashboard"]
    file = tmp_path / "scheduler.json"
    procs = [subprocess.Popen([*DASK, "scheduler", "--protocol", "tls", "--host", "127.0.0.1", "--port", "0",
                               "--scheduler-file", str(file), *tls], stderr=subprocess.DEVNULL)]
    try:
        address = wait_for(lambda: file.exists() and json.loads(file.read_text() or "{}").get("address"),
                           what="the scheduler's address")
        assert address.startswith("tls://127.0.0.1:")
        procs.append(subprocess.Popen([*DASK, "worker", address, "--nthreads", "1", *tls], stderr=subprocess.DEVNULL))
        settings = {"DASK_DISTRIBUTED__COMM__TLS__CA_FILE": ca, "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT": cert,
                    "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY": key}
        done = sweep("--size", 3, "--count", 4, "--algorithm", "astar", "--heuristic", "manhattan",
                     "--scheduler", address, "--out", tmp_path, "--name", "tls", env=settings)
        assert done.returncode == 0, done.stderr
        assert (rows(tmp_path / "tls")["status"] == "solved").sum() == 4
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=30)
