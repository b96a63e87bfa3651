"""A sweep's state from its client record and a real process standing in for the client:
planned, running, finished, interrupted, cancelled (tests/test_detach.py runs real sweeps)."""

import os
import subprocess
import sys

from tilesweep.jobs.client import mark_cancelled, read_client, record_client, state


def client_process() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])


def end(proc: subprocess.Popen) -> None:
    """Kill the process and wait for its end without reaping it: a zombie, as a client its
    parent has not yet waited for."""
    proc.kill()
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)


def test_each_state_from_the_record_and_the_clients_life(tmp_path):
    assert state(0, 4, tmp_path) == ("planned", None)
    with client_process() as proc:
        record_client(tmp_path, proc.pid, "tilesweep sweep --name x")
        assert state(1, 4, tmp_path)[0] == "running"
        assert state(4, 4, tmp_path)[0] == "finished"  # every chunk saved, whatever the client does
        end(proc)
        assert state(1, 4, tmp_path)[0] == "interrupted"  # a zombie, not yet reaped, has ended too
    assert state(1, 4, tmp_path) == ("interrupted", read_client(tmp_path))


def test_a_client_cancelled_after_the_record_was_first_read_shows_as_cancelled(tmp_path):
    """``cancel`` marks the record, then signals the client: the state reads the record again
    once it sees the client gone, so the mark is never missed (``status --watch`` once showed
    a cancelled sweep as interrupted when the client ended while it read the parts)."""
    with client_process() as proc:
        record_client(tmp_path, proc.pid, "tilesweep sweep --name x")
        assert state(1, 4, tmp_path)[0] == "running"
        mark_cancelled(tmp_path, read_client(tmp_path))
        end(proc)
    what, record = state(1, 4, tmp_path)
    assert what == "cancelled" and record["cancelled"] is True and record["command"] == "tilesweep sweep --name x"
