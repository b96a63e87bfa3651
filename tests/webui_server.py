"""Starting ``tilesweep ui`` for the web UI's tests."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ARTIFACTS = Path(os.environ.get("TILESWEEP_ARTIFACTS", ROOT / "test-artifacts")) / "webui"


class Server:
    """``python cli.py ui --port 0 ...`` (or another ``program``) in a subprocess; ``url`` once it listens."""

    def __init__(self, out: Path, store: Path, *args: str, program=(sys.executable, str(ROOT / "cli.py")),
                 cwd: Path = ROOT, env: dict = ENV):
        self.proc = subprocess.Popen(
            [*program, "ui", "--port", "0", "--out", str(out), "--store", str(store), *args],
            cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.stderr: list[str] = []
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()
        line = self.proc.stdout.readline()
        match = re.search(r"http://\S+/", line)
        if not match:
            self.stop()
            raise RuntimeError(f"tilesweep ui did not start: {line!r} {''.join(self.stderr)}")
        self.url = match.group(0).rstrip("/")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# what the pages' postJson sends with every POST (webui/guard.py refuses a POST without them)
PAGE_HEADERS = {"Content-Type": "application/json", "X-Tilesweep-Page": "1"}


def request(server, method, path, body=None, headers=None, timeout=300, page=True):
    """(status, body text) of one request on a fresh connection; a POST carries the page's
    headers unless ``page`` is false, and ``headers`` are added last."""
    address = urlsplit(server.url)
    conn = http.client.HTTPConnection(address.hostname, address.port, timeout=timeout)
    try:
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        sent = {**(PAGE_HEADERS if page and method not in ("GET", "HEAD") else {}), **(headers or {})}
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


def raw_post(server, body: bytes, extra: bytes = b"", length: int | None = None) -> bytes:
    """The head of a POST to /api/solve as the page sends it, for requests written to a socket."""
    host = urlsplit(server.url).netloc.encode()
    return (b"POST /api/solve HTTP/1.1\r\nHost: " + host + b"\r\nContent-Type: application/json\r\n"
            b"X-Tilesweep-Page: 1\r\n" + extra + f"Content-Length: {len(body) if length is None else length}"
            "\r\n\r\n".encode() + body)


@contextmanager
def running_sweep(out: Path, name: str):
    """A 600-instance BFS sweep ``out/name`` on one embedded worker, in a subprocess (a few
    minutes of work), from when its folder exists until the block ends; Ctrl-C stops it then."""
    import shutil

    from polling import wait_for

    shutil.rmtree(out / name, ignore_errors=True)
    sweep = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "sweep", "--size", "3", "--count", "600",
                              "--chunk-size", "30", "--algorithm", "bfs", "--workers", "1", "--name", name,
                              "--out", str(out)], cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: (out / name / "sweep.json").is_file(), what="the sweep folder")
        yield sweep
    finally:
        sweep.send_signal(signal.SIGINT)
        try:
            sweep.wait(timeout=60)
        except subprocess.TimeoutExpired:
            sweep.kill()
            sweep.wait()
