"""Every server tilesweep starts listens on loopback only: on a shared machine (a login node)
no other user reaches the embedded cluster's scheduler, workers or dashboard, nor the web UI
and its solver processes."""

import os

import psutil
import pytest

from tilesweep.cluster.connect import connect
from webui_server import Server

pytestmark = pytest.mark.cluster


def listening(pid: int) -> set[tuple[str, int]]:
    """The (address, port) pairs that ``pid`` and its descendants listen on."""
    ours = {pid, *(p.pid for p in psutil.Process(pid).children(recursive=True))}
    return {(c.laddr.ip, c.laddr.port) for c in psutil.net_connections("tcp")
            if c.status == psutil.CONN_LISTEN and c.pid in ours}


def test_embedded_cluster_listens_on_loopback_only():
    with connect(None, 1) as client:
        sockets = listening(os.getpid())
        dashboard = client.scheduler_info()["services"]["dashboard"]
    assert ("127.0.0.1", dashboard) in sockets
    assert {ip for ip, _ in sockets} == {"127.0.0.1"}, sockets


def test_the_web_ui_listens_on_loopback_only(tmp_path):
    server = Server(tmp_path / "sweeps", tmp_path / "store")
    try:
        sockets = listening(server.proc.pid)
    finally:
        server.stop()
    port = int(server.url.rsplit(":", 1)[1])
    assert ("127.0.0.1", port) in sockets
    assert {ip for ip, _ in sockets} == {"127.0.0.1"}, sockets
