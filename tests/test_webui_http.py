"""``tilesweep ui`` over HTTP (no browser): validation, file safety, concurrency, cancellation.

A real server (``python cli.py ui --port 0``) in a subprocess; requests by ``http.client``
so paths such as ``/sweeps/../../etc/passwd`` reach it unnormalised.
"""

import http.client
import json
import os
import signal
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner

import naive
from polling import wait_for
from sweeps_local import local_sweep
from tilesweep.cli import app
from tilesweep.solver import Board
from webui_server import ARTIFACTS, PAGE_HEADERS, ROOT, Server, raw_post, request

# Korf (1985), Table 1: instances of 11 to 63 million nodes with Manhattan distance, so eight of them
# keep two solver processes busy for seconds
KORF_COSTS = {2: 55, 4: 56, 5: 56, 6: 52, 8: 50, 13: 46, 16: 42, 18: 55}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("ui")
    local_sweep(root / "sweeps", "small", size=3, count=12, algorithms=("astar",), heuristics=("manhattan",),
                chunk_size=4)
    (root / "sweeps" / "small" / "link").symlink_to("/etc")
    # a budget above what 0.2 s of IDA* generates, so a time limit is what stops a long search
    srv = Server(root / "sweeps", root / "store", "--solvers", "2", "--max-nodes", str(10 ** 10))
    srv.root = root
    yield srv
    srv.stop()


def solve(server, **fields):
    status, text = request(server, "POST", "/api/solve", fields)
    assert status == 200, text
    return json.loads(text)


def cli_error(*args) -> str:
    """The one line ``tilesweep`` prints on stderr for bad input (exit 2)."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 2, result.output
    return result.stderr.strip()


BAD_SOLVES = [
    ({"tiles": "1 2 3 4 5 6 7 8 8"}, "duplicated: 8"),
    ({"tiles": "1 2 3 4 5 6 7 8"}, "8 numbers"),
    ({"tiles": "a b c d e f g h i"}, "not a tile number"),
    ({"tiles": "1 2 3 4 5 6 7 8 9"}, "out of range"),
    ({"tiles": " ".join(map(str, range(25)))}, "size 5 is not offered"),
    ({"tiles": [1, 2, 3, 4, 5, 6, 7, 8, "x"]}, "is not a board"),
    ({"tiles": 123456780}, "is not a board"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "algorithm": "greedy"}, "algorithm 'greedy' is not known"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "heuristic": "chebyshev"}, "heuristic 'chebyshev' is not known"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "heuristic": "pdb:9-9"}, "partition '9-9' is not known"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "goal": "blank-middle"}, "goal 'blank-middle' is not known"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "conventions": "course"}, "unknown preset 'course'"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "conventions": "pops-board-string"}, "do not apply to IDA*"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "max_nodes": 0}, "too small"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "max_nodes": "many"}, "not a whole number"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "max_nodes": 10 ** 12}, "above this server's budget"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "time_limit": -1}, "time-limit -1 is not a number of seconds"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "time_limit": 10 ** 6}, "at most 300 (this server's limit; start tilesweep ui"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "cpu_time_limit": "soon"}, "cpu-time-limit 'soon' is not a number of seconds"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "cpu_time_limit": 10 ** 6}, "cpu-time-limit 1000000 is not a number of seconds"),
    # the cap the page states, not the library's 1,000,000,000 seconds
    ({"tiles": "1 2 3 4 5 6 7 0 8", "cpu_time_limit": 0},
     "cpu-time-limit 0 is not a number of seconds; expected a number > 0 and at most 300 (this server's limit"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "time_limit": 1, "cpu_time_limit": 1},
     "time-limit 1 and cpu-time-limit 1 are both given; expected one of them (wall or CPU seconds)"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "colour": "red"}, "field 'colour' is not known"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "size": 7}, "size 7 is not offered"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "heuristic": "pdb:4-4"}, "tilesweep pdb build --size 3 --partition 4-4"),
    (b"tiles=1,2,3", "not JSON"),
    (b"\xff\xfe", "not JSON"),
    ([1, 2, 3], "not a JSON object"),
    (b" " * 20_000, "too large"),
    (b" " * 3_000_000, "3000000 bytes is too large"),
    # any shape and any size of number: one line, never a 500
    (b"[" * 5000 + b"]" * 5000, "nests arrays and objects deeper than the parser goes"),
    (b'{"a":' * 2500 + b"1" + b"}" * 2500, "nests arrays and objects deeper than the parser goes"),
    ({"tiles": [[[[1]]]]}, "nests arrays and objects 5 deep; expected an object whose fields hold text"),
    (b'{"tiles": ' + b"7" * 5000 + b"}", "holds a number of 5,000 digits; expected numbers of at most 4300"),
    (b'{"tiles": -' + b"7" * 5000 + b"}", "holds a number of 5,000 digits"),
    (b'{"tiles": "1 2 3 4 5 6 7 0 8", "time_limit": NaN}', "NaN is not a JSON number"),
    (b'{"tiles": "1 2 3 4 5 6 7 0 8", "time_limit": -Infinity}', "-Infinity is not a JSON number"),
    (b'{"tiles": "1 2 3 4 5 6 7 0 8", "time_limit": 1' + b"0" * 5000 + b".5}", "time-limit inf is not a number"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "time_limit": 10 ** 4000}, "(4,001 characters) is not a number of seconds"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "max_nodes": 10 ** 4000}, "(4,001 characters) is above this server's budget"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "max_nodes": "9" * 5000}, "(5,000 characters) is too large"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "size": "9" * 5000}, "(5,000 characters) is too large"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "goal": "1 2 3 4 5 6 7 8 " + "9" * 5000},
     "out of range 0..8: 999999999... (5,000 digits)"),
    ({"tiles": "1 2 3 4 5 6 7 0 8", "goal": "9" * 5000}, "1 tiles where a 3x3 board needs 9"),
    ({"tiles": "1 2 3 4 5 6 7 0 " + "8" * 5000}, "out of range 0..8: 888888888... (5,000 digits)"),
    ({"tiles": "\ud800 2 3 4 5 6 7 0 8"}, "not a tile number: '\\ud800'"),
]

BAD_GETS = [
    ("/sweeps/../../etc/passwd", 404),
    ("/files/../../etc/passwd", 403),
    ("/files/%2e%2e/%2e%2e/etc/passwd", 403),
    ("/files/small/link/passwd", 404),
    ("/files/small/results/.hidden", 404),
    ("/static/../cli.py", 403),
    ("/sweeps/missing", 404),
    ("/sweeps/..", 404),
    ("/api/sweeps/missing", 404),
    ("/api/sweeps/missing/results.parquet", 404),
    ("/api/shuffle?size=9", 400),
    ("/api/shuffle?walk=-3", 400),
    ("/api/shuffle?walk=1000000", 400),
    ("/api/options?goal=sideways", 400),
    ("/api/options?size=x", 400),
    ("/api/solve", 405),
    ("/nowhere", 404),
    ("/api/shuffle?walk=" + "9" * 5000, 400),
    ("/api/options?size=" + "9" * 5000, 400),
    ("/api/options?goal=" + "9" * 5000, 400),
    ("/api/shuffle?goal=1%202%20" + "9" * 5000, 400),
]


def rendered(page: str) -> str:
    """``page`` of webui/static as the server fills it into the layout."""
    from tornado.template import Loader
    return Loader(str(ROOT / "webui" / "static"), whitespace="all").load(page).generate().decode()


@pytest.mark.parametrize("path, page, title", [("/", "play.html", "play and solve"),
                                               ("/sweeps", "sweeps.html", "sweeps")])
def test_pages_are_their_template_in_the_layout(server, path, page, title):
    status, text = request(server, "GET", path)
    assert status == 200 and text == rendered(page)
    assert text.startswith("<!doctype html>") and f"<title>tilesweep · {title}</title>" in text
    assert '<script src="/static/common.js"></script>' in text and "{%" not in text
    assert "http" not in text  # no CDN: every script and style comes from /static

def test_a_body_announced_too_large_is_refused_unread(server):
    """A client announcing 100 MB and waiting for ``100 Continue`` gets the 413 instead."""
    address = urlsplit(server.url)
    with socket.create_connection((address.hostname, address.port), timeout=60) as sock:
        sock.sendall(raw_post(server, b"", b"Expect: 100-continue\r\n", length=100_000_000))
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
            if answer.endswith(b"\n") and b"\r\n\r\n" in answer:
                break
    head, _, body = answer.decode().partition("\r\n\r\n")
    assert head.startswith("HTTP/1.1 413")
    assert_one_line(413, body)
    assert "100000000 bytes is too large" in body
    assert_still_serving(server)


def test_a_chunked_body_of_10_mb_gets_one_line(server):
    """A body sent in chunks (no Content-Length) is refused with the UI's one line at once,
    however much follows: 10 MB, beyond what the server reads of any body."""
    address = urlsplit(server.url)
    host = address.netloc.encode()
    head = (b"POST /api/solve HTTP/1.1\r\nHost: " + host + b"\r\nContent-Type: application/json\r\n"
            b"X-Tilesweep-Page: 1\r\nTransfer-Encoding: chunked\r\n\r\n")
    piece = b"%x\r\n" % (1 << 20) + b" " * (1 << 20) + b"\r\n"
    answer = b""
    with socket.create_connection((address.hostname, address.port), timeout=60) as sock:
        sock.sendall(head)
        try:
            for _ in range(10):
                sock.sendall(piece)
            sock.sendall(b"0\r\n\r\n")
        except OSError:  # the server stopped reading once it had answered
            pass
        while b"\r\n\r\n" not in answer or not answer.endswith(b"\n"):
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    status_line, _, rest = answer.decode().partition("\r\n")
    body = rest.partition("\r\n\r\n")[2].partition("HTTP/1.1")[0]
    assert status_line.startswith("HTTP/1.1 411"), answer[:300]
    assert_one_line(411, body)
    assert "Transfer-Encoding 'chunked'" in body and "Content-Length" in body
    assert_still_serving(server)


def assert_one_line(status, text, low=400, high=499):
    assert low <= status <= high, (status, text)
    assert text.startswith("error: ") and text.endswith("\n") and text.count("\n") == 1, repr(text)


def assert_still_serving(server):
    status, text = request(server, "GET", "/api/options?size=3", timeout=30)
    assert status == 200 and json.loads(text)["algorithms"]


@pytest.mark.parametrize("body, expected", BAD_SOLVES, ids=range(len(BAD_SOLVES)))
def test_bad_solve_request_gets_one_line(server, body, expected):
    status, text = request(server, "POST", "/api/solve", body)
    assert_one_line(status, text)
    assert expected in text and len(text) < 600  # a huge value is quoted cut short
    assert_still_serving(server)
    assert not any("Traceback" in line for line in server.stderr), "".join(server.stderr)


@pytest.mark.slow
def test_solve_under_other_conventions(server):
    """The page's solve counts as ``solve --conventions`` does (the course's A* table)."""
    course = {"tiles": "7 6 2 8 5 3 0 1 4", "goal": "blank-first", "algorithm": "astar", "heuristic": "euclidean"}
    r = solve(server, **course, conventions="pops-board-string")
    cli = CliRunner().invoke(app, ["solve", course["tiles"], "--goal", "blank-first", "-a", "astar", "-H", "euclidean",
                                   "--conventions", "pops-board-string", "--json"])
    assert r["conventions"] == "pops-board-string"
    assert (r["cost"], r["nodes_expanded"]) == tuple(json.loads(cli.stdout)[k] for k in ("cost", "nodes_expanded"))
    assert solve(server, **course)["conventions"] == "korf"


@pytest.mark.parametrize("path, code", BAD_GETS)
def test_bad_path_gets_one_line(server, path, code):
    status, text = request(server, "GET", path)
    assert status == code, (status, text)
    assert_one_line(status, text)
    assert "root:" not in text
    assert_still_serving(server)


SOLVE = {"tiles": "1 2 3 4 5 6 7 0 8", "algorithm": "astar"}
JSON = {"Content-Type": "application/json"}


def cross_site(server):
    """Headers of POSTs that do not come from the server's own page, the status and the line's start."""
    here = urlsplit(server.url).netloc
    return [
        ({"Origin": "http://evil.example", "Content-Type": "text/plain"}, 403,
         "Origin 'http://evil.example' is not this server"),
        ({**PAGE_HEADERS, "Origin": "http://evil.example"}, 403, "Origin 'http://evil.example' is not this server"),
        ({**PAGE_HEADERS, "Origin": f"http://{here}.evil.example"}, 403, "is not this server"),
        ({**PAGE_HEADERS, "Origin": "null"}, 403, "Origin 'null' is not this server"),
        ({**PAGE_HEADERS, "Origin": "http://[evil"}, 403, "Origin 'http://[evil' is not this server"),
        ({**PAGE_HEADERS, "Sec-Fetch-Site": "cross-site"}, 403,
         "Sec-Fetch-Site 'cross-site': only this server's own pages"),
        ({**PAGE_HEADERS, "Sec-Fetch-Site": "same-site"}, 403, "Sec-Fetch-Site 'same-site'"),
        ({"Origin": f"http://{here}", "Content-Type": "text/plain", "X-Tilesweep-Page": "1"}, 415,
         "Content-Type 'text/plain' is not JSON; expected application/json"),
        ({"Content-Type": "application/x-www-form-urlencoded", "X-Tilesweep-Page": "1"}, 415, "Content-Type"),
        ({"X-Tilesweep-Page": "1"}, 415, "Content-Type '' is not JSON"),
        ({"Origin": f"http://{here}", **JSON}, 403, "header X-Tilesweep-Page: 1 is missing"),
    ]


@pytest.mark.parametrize("case", range(11))
def test_a_post_not_from_the_servers_own_page_is_refused(server, case):
    headers, code, expected = cross_site(server)[case]
    for path in ("/api/solve", "/api/board"):
        status, text = request(server, "POST", path, SOLVE if path == "/api/solve" else {"tiles": SOLVE["tiles"]},
                               headers=headers, page=False)
        assert status == code, text
        assert_one_line(status, text)
        assert expected in text, text


def test_the_pages_own_post_is_answered(server):
    here = urlsplit(server.url).netloc
    for headers in ({**PAGE_HEADERS, "Origin": f"http://{here}", "Sec-Fetch-Site": "same-origin"},
                    {**PAGE_HEADERS, "Content-Type": "application/json; charset=utf-8"}, PAGE_HEADERS):
        status, text = request(server, "POST", "/api/solve", SOLVE, headers=headers, page=False)
        assert status == 200 and json.loads(text)["status"] == "solved", text


def test_a_preflight_is_never_approved(server):
    """A page of another origin must ask before sending JSON or the page header; the answer
    approves nothing, so the browser never sends the POST."""
    address = urlsplit(server.url)
    conn = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
    try:
        conn.request("OPTIONS", "/api/solve", headers={
            "Origin": "http://evil.example", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,x-tilesweep-page"})
        response = conn.getresponse()
        text = response.read().decode()
    finally:
        conn.close()
    assert response.status == 403
    assert_one_line(response.status, text)
    assert not [name for name, _ in response.getheaders() if name.lower().startswith("access-control-")]


FOREIGN_HOSTS = ["evil.example", "evil.example:{port}", "127.0.0.1.evil.example:{port}", "localhost.evil.example",
                 "[::1].evil.example", "", "evil.example:80:80", "127.0.0.1:abc"]
# refused by tornado itself, before any route, with a bare 400 (no browser sends them)
MALFORMED_HOSTS = ["127.0.0.1:{port}, evil.example", "a b"]
OWN_HOSTS = ["127.0.0.1:{port}", "127.0.0.1", "localhost:{port}", "LOCALHOST:{port}", "[::1]:{port}"]
READS = ["/", "/sweeps", "/api/sweeps", "/api/sweeps/small", "/files/small/sweep.json",
         "/files/small/results/part-00000.parquet", "/static/common.js", "/api/options", "/nowhere"]


def with_host(server, method, path, host, body=None):
    """(status, text) of a request naming ``host`` (a DNS-rebinding page's request names its own)."""
    address = urlsplit(server.url)
    conn = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", host.format(port=address.port))
        data = None if body is None else json.dumps(body).encode()
        for name, value in ({**PAGE_HEADERS, "Content-Length": str(len(data))} if data else {}).items():
            conn.putheader(name, value)
        conn.endheaders(data)
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


@pytest.mark.parametrize("host", FOREIGN_HOSTS)
def test_a_foreign_host_is_refused(server, host):
    for path in READS:
        status, text = with_host(server, "GET", path, host)
        assert status == 403, (path, status, text)
        assert_one_line(status, text)
        assert "is not this server's name; expected 127.0.0.1, ::1, localhost" in text
        assert "--allowed-host NAME" in text
    status, text = with_host(server, "POST", "/api/solve", host, SOLVE)
    assert status == 403 and "is not this server's name" in text


@pytest.mark.parametrize("host", OWN_HOSTS)
def test_the_servers_own_names_are_answered(server, host):
    for path in READS[:-1]:
        status, text = with_host(server, "GET", path, host)
        assert status == 200, (path, status, text)
    status, text = with_host(server, "POST", "/api/solve", host, SOLVE)
    assert status == 200 and json.loads(text)["status"] == "solved"


@pytest.mark.parametrize("host", MALFORMED_HOSTS)
def test_a_malformed_host_is_refused(server, host):
    status, text = with_host(server, "GET", "/api/sweeps", host)
    assert status == 400 and "sweeps" not in text
    assert_still_serving(server)


def test_a_request_without_host_is_refused(server):
    address = urlsplit(server.url)
    with socket.create_connection((address.hostname, address.port), timeout=60) as sock:
        sock.sendall(b"GET /api/sweeps HTTP/1.0\r\n\r\n")
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    head, _, body = answer.decode().partition("\r\n\r\n")
    assert head.startswith("HTTP/1.0 403") or head.startswith("HTTP/1.1 403"), head
    assert_one_line(403, body)
    assert body.startswith("error: no Host header; expected 127.0.0.1")


@pytest.mark.slow  # starts several servers
def test_allowed_hosts_and_any_address(tmp_path):
    """--allowed-host adds a name; a server on every interface answers any IP address (a
    rebinding page names its own host, never an address) and its machine's name, no other."""
    srv = Server(tmp_path / "sweeps", tmp_path / "store", "--allowed-host", "tiles.example",
                 "--allowed-host", "Board.Example:9000")
    try:
        assert with_host(srv, "GET", "/api/sweeps", "tiles.example:{port}")[0] == 200
        assert with_host(srv, "GET", "/api/sweeps", "board.example")[0] == 200
        status, text = with_host(srv, "GET", "/api/sweeps", "evil.example")
        assert status == 403 and "expected 127.0.0.1, ::1, board.example, localhost, tiles.example;" in text
    finally:
        srv.stop()
    srv = Server(tmp_path / "sweeps", tmp_path / "store", "--host", "0.0.0.0")
    try:
        for host in ("10.1.2.3:{port}", "[fe80::1]:{port}", "127.0.0.1", socket.gethostname()):
            assert with_host(srv, "GET", "/api/sweeps", host)[0] == 200, host
        status, text = with_host(srv, "GET", "/api/sweeps", "evil.example:{port}")
        assert status == 403 and "or an IP address; start tilesweep ui with --allowed-host NAME" in text
    finally:
        srv.stop()


def test_messages_are_the_clis(server):
    for args, body in [(["solve", "1 2 3 4 5 6 7 8 8"], {"tiles": "1 2 3 4 5 6 7 8 8"}),
                       (["solve", "1 2 3 4 5 6 7 0 8", "-a", "greedy"],
                        {"tiles": "1 2 3 4 5 6 7 0 8", "algorithm": "greedy"}),
                       (["solve", "1 2 3 4 5 6 7 0 8", "-H", "chebyshev"],
                        {"tiles": "1 2 3 4 5 6 7 0 8", "heuristic": "chebyshev"}),
                       (["solve", "1 2 3 4 5 6 7 0 8", "--goal", "blank-middle"],
                        {"tiles": "1 2 3 4 5 6 7 0 8", "goal": "blank-middle"})]:
        status, text = request(server, "POST", "/api/solve", body)
        assert status == 400 and text.strip() == cli_error(*args)


def test_board_check_gives_parity_reason_without_search(server):
    status, text = request(server, "POST", "/api/board", {"tiles": "1 3 2 4 5 6 7 8 0"})
    answer = json.loads(text)
    assert status == 200 and answer["solvable"] is False
    assert answer["reason"].startswith("unsolvable: the tiles (blank included) are an odd permutation")
    result = solve(server, tiles="1 3 2 4 5 6 7 8 0", algorithm="bfs")
    assert result["status"] == "unsolvable" and result["nodes_generated"] == 0


def test_shuffles_are_solvable_boards(server):
    for query in ("size=3&goal=blank-first", "size=4&walk=30"):
        status, text = request(server, "GET", f"/api/shuffle?{query}")
        tiles = json.loads(text)["tiles"]
        goal = "blank-first" if "first" in query else "blank-last"
        status, text = request(server, "POST", "/api/board", {"tiles": tiles, "goal": goal})
        assert json.loads(text)["solvable"] is True


def test_pdb_heuristics_name_their_build_command(server):
    status, text = request(server, "GET", "/api/options?size=4&goal=blank-first")
    choices = {h["name"]: h for h in json.loads(text)["heuristics"]}
    assert choices["manhattan"]["available"] is True
    assert choices["pdb:7-8"]["available"] is False
    build = f"tilesweep pdb build --size 4 --partition 7-8 --goal blank-first --store {server.root / 'store'}"
    assert build in choices["pdb:7-8"]["why"]


def test_limits_stop_a_search_and_say_which(server, korf100):
    tiles = " ".join(map(str, korf100[1]))
    nodes = solve(server, tiles=tiles, goal="blank-first", algorithm="idastar", max_nodes=1000)
    assert (nodes["status"], nodes["status_reason"], nodes["max_nodes"]) == ("budget_exceeded", "nodes", 1000)
    timed = solve(server, tiles=tiles, goal="blank-first", algorithm="idastar", time_limit=0.2)
    assert (timed["status"], timed["time_limit"]) == ("timeout", 0.2) and timed["nodes_generated"] > 1000
    on_cpu = solve(server, tiles=tiles, goal="blank-first", algorithm="idastar", cpu_time_limit=0.2)
    assert (on_cpu["status"], on_cpu["cpu_time_limit"], on_cpu["time_limit"]) == ("timeout", 0.2, None)
    assert 0.2 <= on_cpu["cpu_seconds"] < 1 and on_cpu["nodes_generated"] > 1000


def test_pdb_solve_once_its_tables_are_built(server):
    from tilesweep.cli import app as cli_app
    built = CliRunner().invoke(cli_app, ["pdb", "build", "--size", "3", "--partition", "5-3",
                                         "--store", str(server.root / "store")])
    assert built.exit_code == 0, built.output
    status, text = request(server, "GET", "/api/options?size=3")
    choices = {h["name"]: h["available"] for h in json.loads(text)["heuristics"]}
    assert choices["pdb:5-3"] is True and choices["pdb:4-4"] is False
    pdb = solve(server, tiles="8 6 7 2 5 4 3 0 1", algorithm="astar", heuristic="pdb:5-3")
    plain = solve(server, tiles="8 6 7 2 5 4 3 0 1", algorithm="astar", heuristic="manhattan")
    assert pdb["status"] == "solved" and pdb["cost"] == plain["cost"] == 31
    assert pdb["nodes_generated"] < plain["nodes_generated"]


def test_a_sweeps_report_is_linked_and_served(tmp_path, server):
    folder = local_sweep(server.root / "sweeps", "reported", size=3, count=6, algorithms=("astar",),
                         heuristics=("manhattan", "misplaced"), chunk_size=3)
    detail = json.loads(request(server, "GET", "/api/sweeps/reported")[1])
    assert detail["report"] is None
    made = CliRunner().invoke(app, ["report", str(folder)])
    assert made.exit_code == 0, made.output
    detail = json.loads(request(server, "GET", "/api/sweeps/reported")[1])
    assert detail["report"] == "/files/reported/report.html"
    status, text = request(server, "GET", detail["report"])
    assert status == 200 and text == (folder / "report.html").read_text()


def test_build_commands_for_named_and_explicit_groups(tmp_path):
    from tilesweep.webui.solves import build_command
    goal = Board.goal(4, "blank-first").tiles
    assert build_command("pdb:7-8+reflect", 4, goal, None) == \
        "tilesweep pdb build --size 4 --partition 7-8 --goal blank-first"
    assert build_command("pdb:1,2,3/4,5,6", 4, goal, str(tmp_path / "my store")) == \
        f"tilesweep pdb build --size 4 --partition 1,2,3/4,5,6 --goal blank-first --store '{tmp_path / 'my store'}'"
    odd_goal = (1, 0, 2, 3, 4, 5, 6, 7, 8)
    assert build_command("pdb:1,2/3,4", 3, odd_goal, None).endswith("--goal '1 0 2 3 4 5 6 7 8'")


def test_a_damaged_part_is_named_and_other_sweeps_still_list(server):
    folder = local_sweep(server.root / "sweeps", "damaged", size=3, count=6, algorithms=("astar",),
                         heuristics=("manhattan",), chunk_size=3)
    part = folder / "results" / "part-00001.parquet"
    part.write_bytes(b"not parquet")
    listing = {s["name"]: s for s in json.loads(request(server, "GET", "/api/sweeps")[1])["sweeps"]}
    assert str(part) in listing["damaged"]["problem"] and listing["small"]["problem"] is None
    status, text = request(server, "GET", "/api/sweeps/damaged")
    detail = json.loads(text)
    assert status == 200 and str(part) in detail["problem"] and detail["summary"] == []
    status, text = request(server, "GET", "/api/sweeps/damaged/results.parquet")
    assert_one_line(status, text, 500, 500)
    assert str(part) in text


def test_get_writes_nothing(server):
    out = server.root / "sweeps"
    (out / "small" / "summary.parquet").unlink()  # a GET must not write it back
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    for path in ("/", "/sweeps", "/sweeps/small", "/api/sweeps", "/api/sweeps/small",
                 "/api/sweeps/small?baseline=manhattan", "/api/sweeps/small/results.parquet",
                 "/files/small/results/part-00000.parquet", "/api/options?size=4", "/api/shuffle"):
        status, _ = request(server, "GET", path)
        assert status == 200, path
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before


@pytest.mark.slow
def test_eight_concurrent_solves_while_pages_answer(server, korf100):
    """Eight 15-puzzles at once (two solve at a time, the rest queue) with Korf's costs, while
    the pages keep answering; the page latencies are reported, not asserted."""
    korf = korf100
    latencies, failures, done = [], [], threading.Event()

    def poll():
        while not done.is_set():
            start = time.perf_counter()
            try:
                status, _ = request(server, "GET", "/api/options?size=4", timeout=30)
            except OSError as err:  # a refused or timed-out request is a failure, not a dead thread
                failures.append(repr(err))
                continue
            latencies.append((time.perf_counter() - start, status))
            time.sleep(0.01)

    poller = threading.Thread(target=poll)
    poller.start()
    try:
        with ThreadPoolExecutor(8) as pool:
            futures = {n: pool.submit(solve, server, tiles=" ".join(map(str, korf[n])), goal="blank-first",
                                      algorithm="idastar", heuristic="manhattan") for n in KORF_COSTS}
            results = {n: f.result() for n, f in futures.items()}
    finally:
        done.set()
        poller.join()
    for n, result in results.items():
        assert result["status"] == "solved" and result["cost"] == KORF_COSTS[n]
        assert Board(korf[n], 4).apply(result["moves"]) == Board.goal(4, "blank-first")
    times = sorted(t for t, status in latencies if status == 200)
    assert failures == [] and len(times) == len(latencies) >= 5  # the page answered all along, and often
    report = (f"8 concurrent 15-puzzle solves: {len(times)} page requests during them, median "
              f"{times[len(times) // 2] * 1000:.1f} ms, max {times[-1] * 1000:.1f} ms")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "concurrency.txt").write_text(report + "\n")
    print(report)


def numba_cache_files() -> dict:
    """Every numba cache file of the package's kernels, with its modification time: under
    ``$NUMBA_CACHE_DIR`` if set, else beside the sources."""
    folder = os.environ.get("NUMBA_CACHE_DIR")
    files = Path(folder).rglob("*.nb[ic]") if folder else ROOT.glob("*/__pycache__/*.nb[ic]")
    return {path: path.stat().st_mtime_ns for path in files}


@pytest.mark.slow
def test_closing_a_request_cancels_its_solve(tmp_path):
    """One solver process: a slow A* is cancelled by closing its request; its process is
    replaced and the next solve runs at once instead of waiting for it, loading the kernels
    from numba's cache rather than compiling them again (no cache file written). A solver
    process killed from outside fails only its own request."""
    srv = Server(tmp_path / "sweeps", tmp_path / "store", "--solvers", "1")
    try:
        quick = {"tiles": "1 2 3 4 5 6 7 0 8", "algorithm": "astar"}
        first = solve(srv, **quick)
        address = urlsplit(srv.url)
        slow = json.dumps({"tiles": "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", "goal": "blank-first",
                           "algorithm": "astar", "heuristic": "misplaced"}).encode()
        with socket.create_connection((address.hostname, address.port)) as sock:
            sock.sendall(raw_post(srv, slow))
            time.sleep(2)
        wait_for(lambda: any("solve cancelled" in line for line in srv.stderr), what="'solve cancelled' on stderr")
        cached = numba_cache_files()
        second = solve(srv, **quick)
        assert second["status"] == "solved" and second["worker"] != first["worker"]
        assert cached and numba_cache_files() == cached  # the new process compiled nothing
        # a solver process killed from outside: its request gets one line, the server goes on
        with ThreadPoolExecutor(1) as pool:
            dying = pool.submit(request, srv, "POST", "/api/solve", json.loads(slow))
            time.sleep(2)
            os.kill(second["worker"], signal.SIGKILL)
            status, text = dying.result(timeout=120)
        assert status == 500 and "the process solving this board died" in text
        assert_one_line(status, text, 500, 500)
        third = solve(srv, **quick)
        assert third["status"] == "solved" and third["worker"] not in (first["worker"], second["worker"])
    finally:
        srv.stop()


@pytest.mark.parametrize("args, expected", [
    (["--port", "70000"], "port 70000 is out of range"),
    (["--port", "http"], "port 'http' is not a whole number"),
    (["--max-nodes", "0"], "max-nodes 0 is too small"),
    (["--solvers", "0"], "solvers 0 is too small"),
    (["--allowed-host", "evil example/"], "allowed-host 'evil example/' is not a host name or an IP address"),
])
def test_ui_bad_options_exit_2_with_one_line(args, expected):
    result = CliRunner().invoke(app, ["ui", *args])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ") and expected in result.stderr


def test_ui_port_in_use_is_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["ui", "--port", str(port), "--out", str(tmp_path)])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: cannot serve on 127.0.0.1:{port}")


@pytest.mark.slow
def test_ui_warns_when_bound_beyond_loopback(tmp_path):
    srv = Server(tmp_path / "sweeps", tmp_path / "store", "--host", "0.0.0.0")
    try:
        assert srv.url.startswith("http://0.0.0.0:")
        wait_for(lambda: srv.stderr, what="the warning on stderr")
        assert srv.stderr[0].startswith("warning: bound to 0.0.0.0, not a loopback address")
    finally:
        srv.stop()


@pytest.mark.slow
def test_an_installed_wheel_serves_its_pages(tmp_path):
    """The static files travel in the wheel as package data: a wheel installed in a fresh
    environment, run outside the checkout, serves them."""
    import subprocess

    from wheelbuild import build_wheel, environment_over_this_one
    wheel = build_wheel(tmp_path)
    venv = tmp_path / "venv"
    environment_over_this_one(venv)
    subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True,
                   timeout=600)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run([venv / "bin" / "python", "-c", "import tilesweep.webui as w; print(w.__file__)"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout
    assert where.startswith(str(venv))
    srv = Server(tmp_path / "sweeps", tmp_path / "store", program=(str(venv / "bin" / "tilesweep"),),
                 cwd=tmp_path, env=env)
    try:
        for page, name in [("/static/play.js", "play.js"), ("/static/style.css", "style.css")]:
            status, text = request(srv, "GET", page)
            assert status == 200 and text == (ROOT / "webui" / "static" / name).read_text()
        status, text = request(srv, "GET", "/")  # the page's template filled into the layout, both in the wheel
        assert status == 200 and text == rendered("play.html")
    finally:
        srv.stop()


def test_a_bad_ticket_gets_one_line(server):
    status, text = request(server, "POST", "/api/solve", {"tiles": "1 2 3 4 5 6 7 0 8", "ticket": "a b/c"})
    assert_one_line(status, text)
    assert "ticket 'a b/c' is not a ticket; expected 1 to 64 letters, digits, - or _" in text


def test_status_names_a_tickets_solve_and_h_path_replays_it(server):
    status, text = request(server, "GET", "/api/status?ticket=nobody")
    state = json.loads(text)
    assert status == 200 and state["state"] == "unknown" and state["solvers"] == 2
    result = solve(server, tiles="7 6 2 8 5 3 0 1 4", algorithm="idastar", heuristic="manhattan", ticket="t-1")
    board = Board.parse("7 6 2 8 5 3 0 1 4")
    goal = Board.goal(3).tiles
    expected = [naive.manhattan(board.apply(result["moves"][:k]).tiles, goal)
                for k in range(result["cost"] + 1)]
    assert result["h_path"] == expected and expected[0] == result["h0"] and expected[-1] == 0


def test_board_h_under_a_heuristic(server):
    wait_for(lambda: json.loads(request(server, "GET", "/api/status")[1])["ready"], what="the warm-up")
    status, text = request(server, "POST", "/api/board", {"tiles": "7 6 2 8 5 3 0 1 4", "heuristic": "manhattan"})
    answer = json.loads(text)
    assert status == 200 and answer["h"] == naive.manhattan((7, 6, 2, 8, 5, 3, 0, 1, 4), Board.goal(3).tiles)
    status, text = request(server, "POST", "/api/board", {"tiles": "7 6 2 8 5 3 0 1 4", "heuristic": "pdb:4-4"})
    answer = json.loads(text)
    assert answer["h"] is None and "tables are not built" in answer["h_note"]


def test_the_favicon_is_served(server):
    status, text = request(server, "GET", "/favicon.ico")
    assert status == 200


PLUGIN = ROOT / "examples" / "heuristics" / "manhattan.py"
HARDEST = "8 6 7 2 5 4 3 0 1"  # the 8-puzzle farthest from blank-last: 31 moves


@pytest.mark.slow  # starts a server that compiles plugin kernels
def test_the_servers_plugins_are_offered_and_solve_alone_and_in_a_max(tmp_path):
    from tilesweep.solver.plugins import source_sha256
    sha = source_sha256(PLUGIN.read_text())
    srv = Server(tmp_path / "sweeps", tmp_path / "store", "--plugin", str(PLUGIN))
    try:
        choices = {h["name"]: h for h in json.loads(request(srv, "GET", "/api/options?size=3")[1])["heuristics"]}
        assert choices["plugin:manhattan-plugin"] == {"name": "plugin:manhattan-plugin", "available": True,
                                                      "version": sha}
        assert "plugin:twice-manhattan" in choices and "manhattan" in choices
        mine = solve(srv, tiles=HARDEST, heuristic="plugin:manhattan-plugin")
        builtin = solve(srv, tiles=HARDEST, heuristic="manhattan")
        assert (mine["status"], mine["cost"], mine["heuristic"]) == ("solved", 31, "plugin:manhattan-plugin")
        assert mine["nodes_generated"] == builtin["nodes_generated"]
        assert (mine["heuristic_version"], builtin["heuristic_version"]) == (sha, None)
        # linear conflicts are never below Manhattan distance: the max is linear-conflict's search
        most = solve(srv, tiles=HARDEST, algorithm="astar", heuristic="max(plugin:manhattan-plugin,linear-conflict)")
        conflicts = solve(srv, tiles=HARDEST, algorithm="astar", heuristic="linear-conflict")
        assert (most["cost"], most["nodes_generated"]) == (31, conflicts["nodes_generated"])
        wait_for(lambda: json.loads(request(srv, "GET", "/api/status")[1])["ready"], what="the warm-up")
        status, text = request(srv, "POST", "/api/board", {"tiles": HARDEST, "heuristic": "plugin:manhattan-plugin"})
        assert json.loads(text)["h"] == naive.manhattan(Board.parse(HARDEST).tiles, Board.goal(3).tiles)
    finally:
        srv.stop()


def test_a_plugin_the_server_was_not_given_is_the_clis_one_line(server):
    import subprocess

    from program import CLI
    status, text = request(server, "POST", "/api/solve", {"tiles": HARDEST, "heuristic": "plugin:manhattan-plugin"})
    # a process of its own: this one may hold the plugin, registered by another test
    cli = subprocess.run([*CLI, "solve", HARDEST, "-H", "plugin:manhattan-plugin"], capture_output=True, text=True)
    assert status == 400 and cli.returncode == 2 and text.strip() == cli.stderr.strip()
    result = CliRunner().invoke(app, ["ui", "--plugin", "missing.py"])
    assert result.exit_code == 2 and result.stderr == ("error: plugin file 'missing.py' does not exist; expected a "
                                                        "Python file defining HEURISTICS\n")
