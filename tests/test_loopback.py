"""The embedded cluster listens on loopback only: on a shared machine (a login node) no
other user reaches its scheduler, workers or dashboard."""

import os

import psutil
import pytest

from tilesweep.cluster.connect import connect

pytestmark = pytest.mark.cluster


def test_embedded_cluster_listens_on_loopback_only():
    with connect(None, 1) as client:
        ours = {os.getpid(), *(p.pid for p in psutil.Process().children(recursive=True))}
        listening = {(c.laddr.ip, c.laddr.port) for c in psutil.net_connections("tcp")
                     if c.status == psutil.CONN_LISTEN and c.pid in ours}
        dashboard = client.scheduler_info()["services"]["dashboard"]
    assert ("127.0.0.1", dashboard) in listening
    assert {ip for ip, _ in listening} == {"127.0.0.1"}, listening
