"""DNS-rebinding protection (SPEC 9.4: 403), as the TS server keeps it: a page whose name is made to resolve to
127.0.0.1 reaches a loopback server, but its requests still carry its own Host and Origin.

The SDK's check matches `name:*` as a prefix (`localhost:1.evil.com` passed), answers 421, and is off
altogether unless the app is bound to a loopback name. Here a Host must be a name, an IPv4 address or a
bracketed IPv6 literal with an optional port, nothing else (no userinfo as in `localhost:80@evil.com`, no
path, no second colon), compared whole; an Origin `scheme://host[:port]` likewise. Without settings of the
user's, every request that arrives on a loopback address is checked against the loopback names, whatever
address the server is bound to (`0.0.0.0` included); with settings, they decide, for every request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.types import Scope

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
_PLAIN_HOST = re.compile(r"(?:[a-z0-9._-]+|\[[0-9a-f:.]+\])(?::([0-9]{1,5}))?")
_ORIGIN = re.compile(r"(https?)://((?:[a-z0-9._-]+|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?)")


def is_loopback_address(address: str | None) -> bool:
    if not address:
        return False
    return address in ("::1", "localhost") or address.startswith(("127.", "::ffff:127."))


def _split(host: str) -> tuple[str, str | None] | None:
    """(name, port) of a Host value in the plain grammar, or None."""
    plain = _PLAIN_HOST.fullmatch(host)
    if plain is None or (plain.group(1) is not None and int(plain.group(1)) > 65_535):
        return None
    port = plain.group(1)
    return (host if port is None else host[: -len(port) - 1]), port


def _allowed(value: str, name: str, patterns: list[str]) -> bool:
    """A Host or Origin `value` (its `name`: the value without its port) against patterns: the value itself,
    or `name` / `name:*` for any port."""
    for pattern in patterns:
        pattern = pattern.lower()
        if pattern in (value, name) or (pattern.endswith(":*") and pattern[:-2] == name):
            return True
    return False


def _host_refused(host: str, patterns: list[str]) -> bool:
    split = _split(host)
    return split is None or not _allowed(host, split[0], patterns)


def _origin_refused(origin: str, patterns: list[str]) -> bool:
    plain = _ORIGIN.fullmatch(origin)
    if plain is None:
        return True
    split = _split(plain.group(2))
    return split is None or not _allowed(origin, f"{plain.group(1)}://{split[0]}", patterns)


@dataclass(frozen=True)
class HostRefusal:
    """Why a request is refused for its Host or Origin: its status, message and `data.reason` (or None)."""

    status: int
    message: str
    reason: str | None = None


class HostCheck:
    """Host and Origin of a request, refused (a HostRefusal) or accepted (None)."""

    def __init__(self, settings: TransportSecuritySettings | None) -> None:
        self.settings = settings

    def refusal(self, scope: Scope) -> HostRefusal | None:
        """403 for a Host or Origin that DNS-rebinding protection does not allow; else 400 for a Host that is not
        a host[:port] (SPEC 9.4, `invalid-host`: an empty one, userinfo, a path, a space, a port over 65535),
        checks on or off, as the TS server answers it. A request without a Host (HTTP/1.0) is served."""
        forbidden = self._forbidden(scope)
        if forbidden is not None:
            return HostRefusal(403, f"Forbidden: {forbidden}")
        host = Headers(scope=scope).get("host")
        if host is not None and _split(host.lower()) is None:
            return HostRefusal(400, f"Bad Request: Invalid Host header: {host}", "invalid-host")
        return None

    def _forbidden(self, scope: Scope) -> str | None:
        settings = self.settings
        if settings is None:
            server = scope.get("server")
            if not is_loopback_address(server[0] if server else None):
                return None
            hosts: list[str] = list(LOOPBACK_NAMES)
            origins = [f"{scheme}://{name}" for scheme in ("http", "https") for name in LOOPBACK_NAMES]
        elif not settings.enable_dns_rebinding_protection:
            return None
        else:
            hosts, origins = list(settings.allowed_hosts), list(settings.allowed_origins)
        headers = Headers(scope=scope)
        host = (headers.get("host") or "").lower()
        if hosts and _host_refused(host, hosts):
            return f"Invalid Host header: {host}"
        origin = headers.get("origin")
        if origin is not None and _origin_refused(origin.lower(), origins):
            return f"Invalid Origin header: {origin}"
        return None
