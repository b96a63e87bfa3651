"""Which requests the UI answers, decided before any route runs.

Two attacks a web page in the user's browser could make on a server on their own machine:

- **DNS rebinding**: a name of the attacker's (``evil.example``) made to resolve to this
  server's address, after which the attacker's page reads ``/api/sweeps`` and ``/files/...``
  as its own origin. The browser still names the attacker's host in ``Host``, so only the
  names of this server are answered (:class:`HostPolicy`).
- **Cross-site requests**: another site's page posting to ``/api/solve``. A request that is
  not a GET or HEAD must come from this server's own pages (:func:`page_request_refusal`):
  no foreign ``Origin``, JSON as its content type and the :data:`PAGE_HEADER` the pages'
  script sends. A page of another origin can set neither of the last two without a CORS
  preflight, and this server approves none (it sends no ``Access-Control-*`` header).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from tilesweep.solver.errors import InvalidOptionError, quoted

SAFE_METHODS = ("GET", "HEAD")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
ANY_ADDRESS = ("", "0.0.0.0", "::")
PAGE_HEADER = "X-Tilesweep-Page"  # sent with "1" by postJson in static/common.js
ALLOW_HINT = "start tilesweep ui with --allowed-host NAME to answer another name"


# a Host header: a name or a bracketed IPv6 address, then an optional port
_HOST = re.compile(r"(?:\[(?P<v6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9_.-]*))(?::[0-9]{1,5})?")


def host_name(text: str) -> str | None:
    """The name or address (unbracketed, lower case) of a ``Host`` header or of a ``--host`` or
    ``--allowed-host`` value; None when ``text`` is neither."""
    text = text.strip().lower()
    if _is_address(text.strip("[]")):  # an option may give an IPv6 address without brackets
        return text.strip("[]")
    match = _HOST.fullmatch(text)
    return match and (match["v6"] or match["name"])


def check_host_name(name: str) -> str:
    """An ``--allowed-host`` value: a host name or an IP address (a port is ignored)."""
    bare = host_name(name)
    if not bare:
        raise InvalidOptionError(f"allowed-host {quoted(name)} is not a host name or an IP address; expected a "
                                 "name such as my-laptop.local or an address such as 192.168.1.20")
    return bare


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` names is a loopback address."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except (socket.gaierror, UnicodeError):
        return False
    return all(ipaddress.ip_address(info[4][0].split("%")[0]).is_loopback for info in infos)


@dataclass(frozen=True)
class HostPolicy:
    """The names a request's ``Host`` may give: the address the server was started on (with
    the loopback names when that is a loopback address) and any ``--allowed-host``. A server
    on every interface (``0.0.0.0``, ``::``) also answers its machine's names and any IP
    address: a rebinding attack needs a name of the attacker's, never a bare address. The
    port is not compared: a forwarded port (docker, ssh) arrives under another number."""

    names: frozenset[str]
    any_address: bool = False

    @classmethod
    def for_server(cls, host: str, allowed=()) -> HostPolicy:
        names = {host_name(host), *map(host_name, allowed)}
        everywhere = host.strip("[]") in ANY_ADDRESS
        if everywhere or is_loopback(host):
            names |= set(LOOPBACK_NAMES)
        if everywhere:
            names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
        return cls(frozenset(names - {"", None}), everywhere)

    def allows(self, header: str) -> bool:
        name = host_name(header)
        return name is not None and (name in self.names or (self.any_address and _is_address(name)))

    def refusal(self, header: str | None) -> tuple[int, str] | None:
        """(403, why) when a request with this ``Host`` header is not answered, else None."""
        if header is not None and self.allows(header):
            return None
        expected = ", ".join(sorted(self.names)) + (" or an IP address" if self.any_address else "")
        given = "no Host header" if header is None else f"Host {quoted(header)} is not this server's name"
        return 403, f"{given}; expected {expected}; {ALLOW_HINT}"


def refusal(hosts: HostPolicy, method: str, headers) -> tuple[int, str] | None:
    """(status, why) when the server does not answer a request, else None."""
    return hosts.refusal(headers.get("Host")) or page_request_refusal(method, headers)


def _origin_host(origin: str) -> str | None:
    """``host[:port]`` of an ``Origin`` header, None for one that is not a URL (``null`` gives "")."""
    try:
        return urlsplit(origin).netloc.lower()
    except ValueError:  # e.g. an unclosed "[" of an IPv6 address
        return None


def page_request_refusal(method: str, headers) -> tuple[int, str] | None:
    """(status, reason) when a request that is not a GET or HEAD does not come from the
    UI's own pages, else None (its ``Host`` is checked first, by :class:`HostPolicy`)."""
    if method in SAFE_METHODS:
        return None
    if headers.get("Transfer-Encoding") is not None:  # chunked: its size is known only once read, up to the cap
        return 411, (f"Transfer-Encoding {quoted(headers['Transfer-Encoding'])}: a {method} body must be sent "
                     "whole with its Content-Length, as the UI's own pages send it")
    host, origin = headers.get("Host", ""), headers.get("Origin")
    if origin is not None and _origin_host(origin) != host.strip().lower():
        return 403, (f"Origin {quoted(origin)} is not this server ({host}); only its own pages may send {method} "
                     "requests")
    fetched_from = headers.get("Sec-Fetch-Site", "same-origin")
    if fetched_from != "same-origin":
        return 403, (f"Sec-Fetch-Site {quoted(fetched_from)}: only this server's own pages may send {method} "
                     "requests")
    media_type = headers.get("Content-Type", "").partition(";")[0].strip().lower()
    if media_type != "application/json":
        return 415, f"Content-Type {quoted(media_type)} is not JSON; expected application/json"
    if headers.get(PAGE_HEADER) != "1":
        return 403, (f"header {PAGE_HEADER}: 1 is missing; the UI's own pages send it with every {method} "
                     "request (scripts and curl: add it)")
    return None
