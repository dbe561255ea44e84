"""`http_app(mcp)`: FastMCP's own `mcp.http_app()` with its sessions on this package's session manager, so the
server speaks msgpack-v1 (native bytes included) beside JSON. Needs `fastmcp` (>= 4, on the SDK 2.3+), which
this package does not depend on.

    import uvicorn
    from mcp_msgpack.fastmcp import http_app

    uvicorn.run(http_app(mcp), host="127.0.0.1", port=8000)    # instead of mcp.run(transport="http")

Everything FastMCP builds stays FastMCP's: its routes (custom routes, auth routes), middleware (auth, its
Host/Origin guard), lifespan, and its settings' defaults for `path`, `json_response`, `stateless_http` and
the idle timeout. Only the session manager its lifespan creates is replaced: FastMCP makes a new one on each
lifespan cycle and assigns it to the endpoint's ASGI app, so the endpoint takes that assignment and keeps ours,
built from the options FastMCP resolved, instead (`_MsgpackEndpoint`). FastMCP's per-session event-store
scoping is kept (`_FastMCPMsgpackSessionManager.event_store`)."""

from __future__ import annotations

from ..shared.sdk_compat import require_http_2x_server

require_http_2x_server("mcp_msgpack.fastmcp.http_app")  # before the SDK internals below: a clear error on an SDK without them

from typing import Any
from uuid import uuid4

from fastmcp import FastMCP
from fastmcp.server.http import StreamableHTTPASGIApp
from fastmcp.server.session_scoped_event_store import SessionScopedEventStore
from mcp.server.streamable_http import EventStore
from mcp.server.streamable_http_manager import DEFAULT_MAX_REQUEST_BODY_SIZE, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

from ..wire import ReceiveLimits
from .content_coding import CompressionOption
from .streamable_http import HOLD_INTERVAL
from .streamable_http_sdk_lines import DEFAULT_MAX_SESSIONS
from .streamable_http_manager import INITIALIZATION_DEADLINE, MsgpackStreamableHTTPSessionManager


class _FastMCPMsgpackSessionManager(MsgpackStreamableHTTPSessionManager):
    """Our session manager with FastMCP's event-store scoping: each session's transport gets its own stream
    namespace in the shared store, as under FastMCP's own manager (which reads `event_store` the same way)."""

    _shared_event_store: EventStore | None = None

    @property  # the SDK's plain attribute, read once per transport
    def event_store(self) -> EventStore | None:
        if self._shared_event_store is None:
            return None
        return SessionScopedEventStore(self._shared_event_store, session_id=uuid4().hex)

    @event_store.setter
    def event_store(self, event_store: EventStore | None) -> None:
        self._shared_event_store = event_store


class _MsgpackEndpoint(StreamableHTTPASGIApp):
    """FastMCP's endpoint app (its lifespan assigns `session_manager`), holding our manager in place of the one
    assigned, built from that one's options and `options` (ours)."""

    _options: dict[str, Any]
    _manager: StreamableHTTPSessionManager | None

    @property  # FastMCP's plain attribute
    def session_manager(self) -> StreamableHTTPSessionManager | None:
        return self._manager

    @session_manager.setter
    def session_manager(self, given: StreamableHTTPSessionManager | None) -> None:
        if given is None or isinstance(given, MsgpackStreamableHTTPSessionManager):
            self._manager = given
            return
        options = dict(self._options)
        deadline = options.pop("initialization_deadline")
        manager = _FastMCPMsgpackSessionManager(
            app=given.app,
            event_store=getattr(given, "_shared_event_store", given.event_store),
            json_response=given.json_response,
            stateless=given.stateless,
            retry_interval=given.retry_interval,
            session_idle_timeout=given.session_idle_timeout,
            **options,
        )
        manager.initialization_deadline = deadline
        self._manager = manager


def _endpoint_of(app: Starlette) -> StreamableHTTPASGIApp:
    """The MCP route's `StreamableHTTPASGIApp`, behind FastMCP's auth wrapper when there is one."""
    path = getattr(app.state, "path", None)
    for route in app.routes:
        if getattr(route, "path", None) != path:
            continue
        inner: Any = getattr(route, "endpoint", None)
        while inner is not None and not isinstance(inner, StreamableHTTPASGIApp):
            inner = getattr(inner, "app", None)
        if inner is not None:
            return inner
    raise RuntimeError(f"no Streamable HTTP endpoint at {path!r} in FastMCP's app: a FastMCP this package does not know")


def http_app(
    mcp: FastMCP[Any],
    path: str | None = None,
    *,
    native_bytes: bool = True,
    limits: ReceiveLimits | None = None,
    encoding: str = "cheapest-cpu",
    reply_streams: str | None = None,
    hold_interval: float = HOLD_INTERVAL,
    initialization_deadline: float = INITIALIZATION_DEADLINE,
    transport_security: TransportSecuritySettings | None = None,
    max_request_body_size: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
    max_sessions: int | None = DEFAULT_MAX_SESSIONS,
    compression: CompressionOption = "auto",
    **fastmcp_options: Any,
) -> Starlette:
    """`mcp.http_app(path, **fastmcp_options)` (FastMCP's Streamable HTTP app: `middleware`, `json_response`,
    `stateless_http`, `event_store`, `retry_interval`, `host_origin_protection`, `allowed_hosts`,
    `allowed_origins`, `session_idle_timeout` as FastMCP takes them) on both wires. The options after `path`
    are `mcp_msgpack.streamable_http_app`'s: by default a request that arrives on a loopback address must
    name loopback in Host and Origin (SPEC 9.4; FastMCP's own guard, when on, runs before it);
    `transport_security` replaces that check's lists or turns it off."""
    if fastmcp_options.get("transport", "http") not in ("http", "streamable-http"):
        raise ValueError("mcp_msgpack.fastmcp.http_app serves Streamable HTTP only (FastMCP's SSE app is not on msgpack-v1)")
    fastmcp_options.pop("transport", None)
    app = mcp.http_app(path=path, transport="http", **fastmcp_options)
    endpoint = _endpoint_of(app)
    endpoint.__class__ = _MsgpackEndpoint
    assert isinstance(endpoint, _MsgpackEndpoint)
    endpoint._manager = None
    endpoint._options = {
        "security_settings": transport_security,
        "max_request_body_size": max_request_body_size,
        "max_sessions": max_sessions,
        "native_bytes": native_bytes,
        "limits": limits,
        "encoding": encoding,
        "reply_streams": reply_streams,
        "hold_interval": hold_interval,
        "initialization_deadline": initialization_deadline,
        "compression": compression,
    }
    return app
